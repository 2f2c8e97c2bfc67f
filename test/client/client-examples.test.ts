import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../helpers/pasted-shell.js';

/** The documents whose TypeScript examples may call the typed client: README.md and everything under docs/. */
function documents(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? under(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return [join(ROOT, 'README.md'), ...under(join(ROOT, 'docs'))];
}

/**
 * Each ```ts block that calls the typed client (`client.…`) and imports nothing but it: the examples a reader
 * copies. Blocks that import other modules (the embed kit, pg, a file of an example) are shown elsewhere.
 */
function clientExamples(): { where: string; code: string }[] {
  return documents().flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/```ts\n([\s\S]*?)```/g)]
      .filter(([, code]) => /\bclient\.\w/.test(code!))
      .filter(([, code]) => [...code!.matchAll(/from '([^']+)'/g)].every(([, module]) => module === 'user-group-service/client'))
      .map((match) => ({ where: `${relative(ROOT, file)}:${text.slice(0, match.index).split('\n').length}`, code: match[1]! }));
  });
}

/** The block as a module of its own: the client's names imported and a `client` declared when the block has neither. */
function asModule(code: string): string {
  const prelude = [
    ...(code.includes("from 'user-group-service/client'")
      ? []
      : ["import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';"]),
    ...(/\bconst client\b/.test(code) ? [] : ['declare const client: UserGroupClient;']),
  ];
  return `${prelude.join('\n')}\n${code}\nexport {};\n`;
}

/**
 * Issue 43, item 10: the README's and the docs' examples of the typed client name what the client takes and
 * answers (the wire's names): each is type-checked against the built declarations, as a reader's project would.
 */
describe('the typed client examples in README.md and docs/', () => {
  it('type-check against the client as built', () => {
    const examples = clientExamples();
    assert.ok(examples.length >= 3, `README.md, docs/customer-api.md and docs/usage.md show the client (found ${examples.length})`);
    const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => readFileSync(path, 'utf8'));
    const options = { ...ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT).options, noEmit: true, incremental: false };
    const files = new Map(examples.map((example, i) => [join(ROOT, 'test', 'client', `example-${i}.ts`), example]));
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) => {
      const example = files.get(name);
      return example ? ts.createSourceFile(name, asModule(example.code), language) : read(name, language, ...rest);
    };
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => files.has(name) || fileExists(name);
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = [...files].flatMap(([name, example]) =>
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(name))
        .map((d) => `${example.where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
    );
    assert.deepEqual(problems, []);
  });
});
