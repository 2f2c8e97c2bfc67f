/** What the routes of this folder share in their OpenAPI documentation. */
export const TAGS = ['Viewers'];
