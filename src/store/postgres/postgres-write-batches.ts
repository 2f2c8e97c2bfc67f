import { ServiceError } from '../../kernel/errors.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import { consequenceParameters } from './postgres-consequences.js';
import { perTurnBatch, type PerTurnBatch } from '../per-turn-batch.js';
import type { PostgresQueries } from './postgres-queries.js';
import type { UserGroupRow } from '../rows.js';

/**
 * The statements that write a whole batch of groups: one array per column, then the consequences of
 * every input (postgres-consequences.ts); one `input_n` (1-based) on each returned row.
 */
export type BatchStatement = 'insertGroups' | 'updateGroups' | 'replaceTokens';

type Answer = UserGroupRow | null | Error;

/**
 * Writes of one kind made in the same turn of the event loop go out as one
 * `statement` and one commit: PostgreSQL's counterpart of SQLite's group
 * commit. Each call is answered with its written row, or null when nothing
 * was written (a lost race, an unknown group). `valuesOf` gives one input's
 * parameters, one per column of `statement`; `consequencesOf` what the
 * domain built for it, appended only if it is written.
 *
 * With `keyOf`, a batch is split into rounds in which no key repeats, so two
 * changes to one group in one turn apply one after the other, in arrival
 * order.
 */
export function batchedWrites<I>(
  queries: PostgresQueries,
  statement: BatchStatement,
  valuesOf: (input: I) => unknown[],
  consequencesOf: (input: I) => WriteConsequences,
  keyOf?: (input: I) => string,
): PerTurnBatch<I, UserGroupRow | null> {
  const write = (inputs: readonly I[]) => writeBatch(queries, statement, inputs, valuesOf, consequencesOf);
  return perTurnBatch((inputs) => (keyOf ? roundByRound(inputs, keyOf, write) : write(inputs)));
}

/** One `statement` for all the inputs; each input's row by its `input_n`, null for inputs without one. */
function writeBatch<I>(
  queries: PostgresQueries,
  statement: BatchStatement,
  inputs: readonly I[],
  valuesOf: (input: I) => unknown[],
  consequencesOf: (input: I) => WriteConsequences,
): Promise<Answer[]> {
  return eachAloneOnFailure(inputs, async (batch) => {
    const { rows } = await queries.query<UserGroupRow & { input_n: number }>(statement, batchParameters(batch, valuesOf, consequencesOf));
    const answers: Answer[] = batch.map(() => null);
    for (const row of rows) answers[row.input_n - 1] = row;
    return answers;
  });
}

/** A batch statement's parameters: its columns, then its inputs' consequences. */
export function batchParameters<I>(
  inputs: readonly I[],
  valuesOf: (input: I) => unknown[],
  consequencesOf: (input: I) => WriteConsequences,
): unknown[] {
  return [...asColumns(inputs.map(valuesOf)), ...consequenceParameters(inputs.map(consequencesOf))];
}

/** One array per parameter (for `unnest`) from one array of parameters per input. */
export function asColumns(rowsOfValues: readonly unknown[][]): unknown[][] {
  return rowsOfValues[0]!.map((_, column) => rowsOfValues.map((values) => values[column]));
}

/**
 * `write` for all the inputs in one statement. When it fails and the database
 * is out of reach, every input fails alike; anything else may be one input's
 * fault, so each is tried again in a batch of its own and only that one fails.
 */
export async function eachAloneOnFailure<I, A>(inputs: readonly I[], write: (batch: readonly I[]) => Promise<A[]>): Promise<(A | Error)[]> {
  try {
    return await write(inputs);
  } catch (error) {
    if (inputs.length === 1 || (error instanceof ServiceError && error.code === 'unavailable')) return inputs.map(() => error as Error);
    return Promise.all(inputs.map(async (input) => (await eachAloneOnFailure([input], write))[0]!));
  }
}

/** `write` for each round of `inRounds`, one round after the other; the answers in input order. */
async function roundByRound<I>(
  inputs: readonly I[],
  keyOf: (input: I) => string,
  write: (round: I[]) => Promise<Answer[]>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const round of inRounds(inputs, keyOf)) {
    const roundAnswers = await write(round.map((position) => inputs[position]!));
    round.forEach((position, i) => (answers[position] = roundAnswers[i]!));
  }
  return answers;
}

/**
 * Splits a batch into rounds in which no key repeats: the n-th input with a
 * key goes in round n. Each round is a list of positions in `inputs`.
 */
function inRounds<I>(inputs: readonly I[], keyOf: (input: I) => string): number[][] {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  inputs.forEach((input, position) => {
    const key = keyOf(input);
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    (rounds[round] ??= []).push(position);
  });
  return rounds;
}
