// cube.js: Cube's configuration, with sessions of the user group service (docs/integrations/cube.md).
// UGS_URL is the service's base URL, UGS_API_KEY a dashboard key of the environment (`ugs keys create --access
// dashboard`): the helper reads the revocation feed with it. Run Cube with NODE_ENV=production and without
// CUBEJS_DEV_MODE all the same: dev mode serves Cube's Playground and turns its built-in checks off.
const { CubejsHandlerError } = require('@cubejs-backend/api-gateway');
const { bindQueryToSession } = require('./query-rewrite');

// The package is an ES module: imported once, the verifier it makes is shared by every request.
const checkAuthReady = import('user-group-service-dashboard/embed').then(({ createCubeCheckAuth }) =>
  createCubeCheckAuth({
    serviceUrl: process.env.UGS_URL,
    apiKey: process.env.UGS_API_KEY,
    CubejsHandlerError,
  }),
);

module.exports = {
  checkAuth: async (req, auth) => (await checkAuthReady)(req, auth),
  queryRewrite: (query, { securityContext }) => bindQueryToSession(query, securityContext),
};
