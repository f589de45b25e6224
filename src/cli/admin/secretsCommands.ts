// grants-admin secrets rotate: re-seals the webhook signing secrets under a new key.
import { rotateDataDirKey } from '../../alerts/secrets.js';
import type { Command, Io } from '../runner.js';
import { COMMON, EXIT, usage, type Session } from './session.js';

/** grants-admin's secrets commands, on the stores of `session`, printing to `io`. */
export function secretsCommands(session: Session, io: Io): Command[] {
  return [
    {
      name: 'secrets rotate',
      usage: usage(
        'secrets rotate',
        'Re-seals every webhook signing secret under a new key, in one transaction. Embedded default: a new\n' +
          'DATA_DIR/secrets.key is made (the old one kept as secrets.key.previous). With SECRETS_KEY: set it to\n' +
          'the new key and SECRETS_KEY_PREVIOUS to the old one, on the instances and here, then run this; after it\n' +
          'SECRETS_KEY_PREVIOUS may be removed. Prints how many alerts were re-sealed, never a key or a secret.',
      ),
      options: COMMON,
      run: async ({ values }) => {
        const { store, box, config } = await session.openAlerts(values);
        const count =
          config.alerts.secretsKey === null
            ? await rotateDataDirKey(config.dataDir, (box) => store.resealSecrets(box))
            : await store.resealSecrets(box);
        io.out(
          `re-sealed the signing secrets of ${count} alert${count === 1 ? '' : 's'} under the ` +
            `${config.alerts.secretsKey === null ? 'new DATA_DIR/secrets.key' : 'SECRETS_KEY'}`,
        );
        return EXIT.ok;
      },
    },
  ];
}
