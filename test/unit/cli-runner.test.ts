// The CLI runner's reading of a command line (src/cli/runner.ts): node:util's parseArgs splits it,
// the runner's own checks give the messages, and a string option takes the next argument whatever
// it looks like.
import { expect } from 'chai';
import { parseCommandArgs, UsageError, type Command } from '../../src/cli/runner.js';

const command: Command = {
  name: 'key create',
  usage: 'Usage: grants-admin key create ID',
  options: { 'data-dir': 'string', json: 'boolean', name: 'string' },
  args: ['ID'],
  run: async () => 0,
};

const parse = (...argv: string[]) => parseCommandArgs(command, argv);
const refusal = (...argv: string[]) => {
  try {
    parse(...argv);
  } catch (error) {
    expect(error).to.be.instanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
};

describe('unit: the CLI runner reads a command line', () => {
  it('takes options in either spelling, flags, and the positional arguments in order', () => {
    expect(parse('s1', '--name', 'a b', '--json', '--data-dir=/d')).to.deep.equal({
      values: { name: 'a b', json: true, 'data-dir': '/d' },
      args: ['s1'],
      help: false,
    });
    expect(parse('--name=', 's1').values).to.deep.equal({ name: '' });
    expect(parse('--name=a=b', 's1').values).to.deep.equal({ name: 'a=b' });
  });

  it('gives a string option the next argument whatever it looks like, and "--" ends the options', () => {
    expect(parse('--name', '-3', 's1').values.name).to.equal('-3');
    expect(parse('--name', '--json', 's1').values).to.deep.equal({ name: '--json' });
    expect(parse('--', '--json').args).to.deep.equal(['--json']);
    expect(parse('-').args).to.deep.equal(['-']);
  });

  it('sees --help and -h anywhere, and then does not count the arguments', () => {
    expect(parse('-h').help).to.equal(true);
    expect(parse('a', 'b', '--help').help).to.equal(true);
  });

  it('refuses what the command does not take, in its own words', () => {
    expect(refusal('s1', '--bogus')).to.equal('key create does not take --bogus');
    expect(refusal('s1', '--constructor')).to.equal('key create does not take --constructor');
    expect(refusal('-hx')).to.equal('key create does not take "-hx"');
    expect(refusal('-3')).to.equal('key create does not take "-3"');
    expect(refusal('--help=1')).to.equal('key create does not take --help');
    expect(refusal('s1', '--json=yes')).to.equal('--json takes no value');
    expect(refusal('s1', '--name')).to.equal('--name needs a value');
    expect(refusal('s1', '--name', 'a', '--name', 'b')).to.equal('--name is given more than once');
    expect(refusal('--json')).to.equal('missing ID');
    expect(refusal('s1', 's2')).to.equal('unexpected argument "s2"');
  });
});
