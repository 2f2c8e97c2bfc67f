import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { LIMITS } from '../../user-groups/user-group.js';
import type { Core } from '../core.js';
import { defaultConfig, type HttpLimits } from '../../platform/config.js';
import { invalidRequest } from '../../kernel/errors.js';
import { AppMetrics } from '../metrics/metrics.js';
import { capConnectionsPerAddress } from '../../platform/http/connections-per-address.js';
import { installErrorHandler, sendServiceError } from '../../platform/http/error-handler.js';
import { BODY_MAX_BYTES, installJsonBodyParser } from '../../platform/http/json-body-parser.js';
import { installMethodNotAllowed } from '../../platform/http/method-not-allowed.js';
import { registerOpenApi } from '../../platform/http/openapi.js';
import { refuseMalformedUrl } from '../../platform/http/refuse-malformed-url.js';
import { ErrorEnvelope } from '../../platform/http/route-docs.js';
import { answerMalformedHttp, refuseExpectation } from '../../platform/http/refused-before-routing.js';
import { refuseWhileClosing } from '../../platform/http/refuse-while-closing.js';
import { requestIdFor } from '../../platform/http/request-id.js';
import { trustedProxyCheck } from '../../platform/http/trusted-proxies.js';
import { OneLinePerRequest } from '../../platform/http/request-log.js';
import { sharedLimits } from '../../api-keys/http/per-key-rate-limit.js';
import { consolePlugin } from '../../console/pages/console-plugin.js';
import { registerLiveness } from './routes/liveness.js';
import { registerReadiness } from './routes/readiness.js';
import { registerJwks } from '../../signing-keys/http/jwks.js';
import { registerEmbedScripts } from '../../embed-sessions/http/embed-scripts.js';
import { registerMetrics } from './routes/metrics.js';
import { homePage } from './routes/home-page.js';
import { apiRoutes, consolePages } from '../routes.js';
import type { TypedApp } from '../../platform/http/typed-app.js';

export interface AppOptions {
  logger: FastifyBaseLogger;
  limits?: HttpLimits;
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>` (UGS_METRICS_TOKEN). */
  metricsToken?: string;
  /** UGS_TRUST_PROXY (see trusted-proxies.ts): X-Forwarded-For is believed from these addresses only. */
  trustedProxies?: readonly string[];
}

/** The HTTP application over an opened core (src/app/core.ts); listening is the caller's business. */
export async function buildApp(services: Core, options: AppOptions): Promise<TypedApp> {
  const limits = options.limits ?? defaultConfig().http;
  const isTrustedProxy = trustedProxyCheck(options.trustedProxies ?? []);
  const app = Fastify({
    // request.ip (throttle, log lines, audit) is then the client a trusted proxy forwarded for; never a forged hop.
    trustProxy: (options.trustedProxies ?? []).length > 0 ? isTrustedProxy : false,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts only this often (30 s by default, which would stretch a 10 s timeout to 40 s).
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs) },
    loggerInstance: options.logger,
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    // HEAD wherever GET is (load balancers probe with it); GET /api/user opts out and has its own, safe HEAD.
    exposeHeadRoutes: true,
    bodyLimit: BODY_MAX_BYTES,
    // Path parameters carry user_group_ids (up to 255 characters; the router's default stops at 100), measured
    // before percent-decoding, where one character can take 12 (four UTF-8 bytes, each %XX). The schema checks the length.
    routerOptions: { maxParamLength: LIMITS.idMaxLength * 12 },
    // Wrong types are errors, never silently coerced ("123" is not 123).
    // The x- keywords are the OpenAPI document's (route-docs.ts): annotations to Ajv.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, keywords: ['x-examples', 'x-response-description'] } },
    clientErrorHandler: answerMalformedHttp(options.logger),
    return503OnClosing: false,
    // Failures before routing (an undecodable URL, say) still get the envelope, and the id the onRequest hook would have set.
    frameworkErrors: (error, request, reply) => {
      sendServiceError(reply.header('x-request-id', request.id), invalidRequest(`The request URL is not valid: ${error.message}`));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // A data source check refuses this process's own ports: a key must not make the service call itself.
  app.addHook('onListen', (done) => {
    const address = app.server.address();
    if (address !== null && typeof address === 'object' && !services.listeningPorts.includes(address.port))
      services.listeningPorts.push(address.port);
    done();
  });

  // First of all hooks, so every answer has it, refusals by later hooks (shutdown, auth) included.
  // Callback-style hooks on every request: an async one costs a promise and a microtask each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // The spec sends JSON bodies with GET; Fastify ignores them unless told otherwise.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  installJsonBodyParser(app);
  installErrorHandler(app);
  // The error answers of every route refer to it (route-docs.ts).
  app.addSchema(ErrorEnvelope);
  installMethodNotAllowed(app);
  refuseWhileClosing(app);
  refuseMalformedUrl(app);

  app.server.maxConnections = limits.maxConnections;
  capConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress, isTrustedProxy);
  // Node answers an Expect other than 100-continue with a bare 417 unless someone listens.
  app.server.on('checkExpectation', refuseExpectation);

  const metrics = new AppMetrics({
    countUserGroups: () => services.userGroups.countByEnvironment(),
    storeTiming: services.storeStatus.timing,
    sessions: services.sessionActivity,
    webhooks: { outcomes: services.webhookDelivery.outcomes, oldestPendingAt: () => services.webhookDelivery.store.oldestPendingAt() },
  });
  metrics.install(app);

  // Before every route: the document is generated from the routes it sees registered.
  await registerOpenApi(app);
  registerLiveness(app);
  registerReadiness(app, services.storeStatus.health, services.storeStatus.clock);
  registerJwks(app, services.signingKeys);
  registerEmbedScripts(app);
  registerMetrics(app, metrics, options.metricsToken);
  await app.register(homePage);
  const shared = sharedLimits(limits);
  await app.register(apiRoutes, { services, limits: shared });
  // The operator console: its own plugin (helmet, cookies, CSRF) whose hooks reach /console only.
  await app.register(consolePlugin, {
    prefix: '/console',
    sessions: services.consoleSessions,
    limits: shared,
    pages: (scope) => consolePages(scope, services),
  });
  return app;
}
