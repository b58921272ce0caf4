import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanTerminalText, CommandOutputs } from '../../src/terminal_text';

test('terminal text loses escapes, OSC marks and progress redraws', () => {
  const raw = '\x1b]633;C\x07\x1b[32mstep 1 | loss 0.5\x1b[0m   \r\n 10%|#  \r100%|###| 10/10\r\nFloatingPointError: loss is nan\x1b]633;D;1\x07';
  assert.equal(cleanTerminalText(raw), 'step 1 | loss 0.5\n100%|###| 10/10\nFloatingPointError: loss is nan');
});

test('command outputs keep the last finished command per terminal', () => {
  const outputs = new CommandOutputs<string>();
  outputs.start('t1', 'python train.py');
  outputs.append('t1', 'step 1 | loss 0.5\r\n');
  outputs.append('t1', 'Traceback (most recent call last):\r\n');
  assert.equal(outputs.last('t1'), undefined);
  outputs.end('t1', 1);
  assert.deepEqual(outputs.last('t1'), { command: 'python train.py', output: 'step 1 | loss 0.5\nTraceback (most recent call last):\n', exitCode: 1 });
  outputs.end('t2', 0); // never started: ignored
  assert.equal(outputs.last('t2'), undefined);
  outputs.forget('t1');
  assert.equal(outputs.last('t1'), undefined);
});
