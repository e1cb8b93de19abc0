import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStorageUrl } from './settings.js';

const keys = { S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' };

describe('STORAGE_URL', () => {
  it('defaults to files under the data directory, so npm start needs nothing', () => {
    expect(parseStorageUrl({}, '/srv/basalt/.data')).toEqual({ driver: 'file', directory: path.join('/srv/basalt/.data', 'files') });
    expect(parseStorageUrl({ STORAGE_URL: 'file:///var/lib/basalt%20files' }, '/x')).toEqual({ driver: 'file', directory: '/var/lib/basalt files' });
  });

  it('reads an S3 bucket with its endpoint, region and path style; the keys come from the environment', () => {
    expect(parseStorageUrl({ STORAGE_URL: 's3://my-bucket?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true', ...keys }, '/x')).toEqual({
      driver: 's3',
      bucket: 'my-bucket',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      accessKeyId: 'id',
      secretAccessKey: 'secret',
    });
    expect(parseStorageUrl({ STORAGE_URL: 's3://my-bucket', ...keys }, '/x')).toMatchObject({ endpoint: null, region: 'us-east-1', forcePathStyle: false });
  });

  it.each([
    ['ftp://host/dir', /file:\/\/ or s3:\/\//],
    ['not a url', /must be file:/],
    ['file://host/dir', /no host/],
    ['s3://My_Bucket', /bucket name/],
    ['s3://bucket/path', /no path/],
    ['s3://user:pass@bucket', /no credentials/],
    ['s3://bucket?acl=public', /unknown parameter "acl"/],
    ['s3://bucket?endpoint=ftp://x', /endpoint must be an http/],
    ['s3://bucket?forcePathStyle=yes', /forcePathStyle must be true or false/],
  ])('stops start-up on %s', (value, message) => {
    expect(() => parseStorageUrl({ STORAGE_URL: value, ...keys }, '/x')).toThrow(message);
  });

  it('stops start-up on an S3 URL without its keys', () => {
    expect(() => parseStorageUrl({ STORAGE_URL: 's3://bucket' }, '/x')).toThrow(/S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/);
  });
});
