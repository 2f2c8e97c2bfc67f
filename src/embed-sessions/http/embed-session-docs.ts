/** What the routes of this folder share in their OpenAPI documentation. */
export const TAGS = ['Embed sessions'];
export const EXAMPLE_JWT = 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiIsInR5cCI6ImVtYmVkK2p3dCJ9.eyJzdWIiOiJhY21lIn0.EXAMPLE0not0a0real0signature';
export const EXAMPLE_SESSION_ID = 'es_EXAMPLE0not0a0real0id';
