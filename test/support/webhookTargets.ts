// Webhook targets for the address check's tests: hosts a tenant may write that a webhook may not
// reach (each refused at creation and at every delivery), and public hosts that must stay accepted.

/** A public address (a name's lookup in the tests answers it). */
export const PUBLIC_ADDRESS = '93.184.215.14';

/** Hosts a webhook may not reach, each as a tenant could write it. */
export const REFUSED_TARGETS = [
  'https://[::127.0.0.1]/x',
  'https://[::7f00:1]/x',
  'https://[::ffff:127.0.0.1]/x',
  'https://[64:ff9b::a00:1]/x',
  'https://[::]/x',
  'https://[fe80::1]/x',
  'https://[2002:a00:1::]/x',
  'https://100.64.0.1/x',
  'https://127.1/x',
  'https://0x7f.1/x',
  'https://2130706433/x',
  'https://localhost./x',
  'https://LOCALHOST/x',
  'https://localhost.localdomain/x',
  'https://localhost.localdomain./x',
  'https://api.localhost/x',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://metadata.google.internal./computeMetadata/v1/',
  'https://instance-data.ec2.internal/latest/meta-data',
  'https://metadata/x',
  'https://printer.local/x',
  'https://router.home.arpa/x',
  'https://10.0.3.7.nip.io/x',
  'https://app.10-0-3-7.nip.io/x',
  'https://0a000307.nip.io/x',
  'https://93.184.215.14.nip.io/x',
  'https://127-0-0-1.sslip.io/x',
  'https://--1.sslip.io/x',
  'https://xip.io/x',
  'https://localtest.me/x',
  'https://169.254.169.254.wildcard-dns.example/x',
  'https://hooks-192-168-1-20.wildcard-dns.example/x',
];

/** Public hosts partners use, in the spellings they write. */
export const ACCEPTED_TARGETS = [
  `https://${PUBLIC_ADDRESS}/hooks`,
  'https://hooks.partner.example/x',
  'https://hooks.partner.example.:8443/x',
  'https://[2606:4700:4700::1111]/x',
  'https://api-2-3-4-5.partner.example/x',
  'https://v1.2.3.partner.example/x',
  'https://10-years.partner.example/x',
  'https://internal-tools.partner.example/x',
];
