import { invalidRequest } from './errors.js';

/**
 * Why an id breaks the NFC rule, or null: a new group's id, and a viewer's id wherever it is given, are in
 * Unicode NFC, since "café" with a precomposed é and with e + U+0301 look the same and would be two groups,
 * or two viewers, that nobody can tell apart. `field` is the field as the caller wrote it; `needs` says whose
 * rule it is, `twice` what there would be two of.
 */
export function nfcRefusal(value: string, field: string, needs: string, twice: string): string | null {
  if (value === value.normalize('NFC')) return null;
  return `"${field}" is not in Unicode NFC (Normalization Form C), which ${needs} need: a precomposed character and its decomposed form (é and e + U+0301) look the same but would be two ${twice}. Send the id NFC-normalized (in JavaScript, id.normalize('NFC')).`;
}

/** nfcRefusal's answer as the 400 invalid_request every caller gets. */
export function assertNfc(value: string, field: string, needs: string, twice: string): void {
  const refusal = nfcRefusal(value, field, needs, twice);
  if (refusal !== null) throw invalidRequest(refusal);
}
