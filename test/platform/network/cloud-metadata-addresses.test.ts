import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cloudMetadataService } from '../../../src/platform/network/cloud-metadata-addresses.js';

describe('cloud metadata addresses outside link-local', () => {
  it('names each, in any textual form', () => {
    for (const address of [
      'fd00:ec2::254',
      'fd00:ec2::23',
      'fd00:0ec2:0000::254',
      'fd20:ce::254',
      '100.100.100.200',
      '::ffff:100.100.100.200',
      '168.63.129.16',
    ])
      assert.ok(cloudMetadataService(address), address);
  });

  it('names no other address of the ranges they sit in, and nothing that is not an address', () => {
    for (const text of ['fd00:ec3::254', 'fd20:ce::253', '100.100.100.201', '100.64.0.1', '168.63.129.17', '10.0.0.1', 'localhost', ''])
      assert.equal(cloudMetadataService(text), null, text);
  });
});
