// Regression (case P9's family, attack s20): with no sandbox, a deny path rule judges the
// files a command's words name, and asks when names come from elsewhere (xargs, --files0-from).
// A program's own code names files as well, and those ran: under `approvalMode: 'allow-all'`
// and a deny on `.env`, `awk 'BEGIN{ARGV[1]=".env";ARGC=2}{print}' ok.txt`, `sed '1r .env'
// ok.txt`, `sed 'R .env'`, `python3 -c 'print(open(".env").read())'`, `node -e ...` and
// `perl -e ...` printed `.env`, and `sed -n 'w .env'` wrote it. Such lines now ask a person
// (`namesFilesInCode`), as a computed word does; in the sandbox the file is hidden instead.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { policyExecutor } from '../policy-executor.js';

describe('files a program\'s own code names, with no sandbox', () => {
  const { t, run } = policyExecutor({ rules: '[[rules]]\naction = "deny"\npaths = [".env"]\n', executor: { approvalMode: 'allow-all', sandbox: 'none' }, person: 'deny' });
  before(() => {
    fs.writeFileSync(path.join(t.ws, '.env'), 'ENVSECRET\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
    fs.writeFileSync(path.join(t.ws, 'show.sh'), '#!/bin/sh\ncat .e""nv\n', { mode: 0o755 });
  });

  test('P9: awk ARGV, sed r/R/w, and interpreter code naming .env ask a person (who says no): nothing read or written', async () => {
    const lines = [
      `awk 'BEGIN{ARGV[1]=".env";ARGC=2}{print}' ok.txt`, `awk 'BEGIN { ARGV[ARGC++] = ".e" "nv" } { print }'`, `sed '1r .env' ok.txt`, `sed -n -e 'R .env' ok.txt`,
      `sed '/ok/r.env' ok.txt`, `python3 -c 'print(open(".env").read())'`, `node -e 'console.log(require("fs").readFileSync(".env","utf8"))'`,
      `perl -e 'open F, ".env"; print <F>'`, `sed -n 'w .env' ok.txt`, `sed 's/ok/x/w .env' ok.txt`,
      // awk's own redirections (review s20): getline < FILE reads, print > FILE writes
      // a versioned interpreter's name and a program run by its path (review s20)
      `python3.11 -c 'print(open(".env").read())'`, `./show.sh`,
      `awk 'BEGIN{while((getline l < ".env")>0) print l}'`, `awk 'BEGIN{f=".e" "nv"; getline l < f; print l}'`, `awk '{f=".e" "nv"; print "x" > f}' ok.txt`,
    ];
    for (const command of lines) {
      const r = await run(command, { confirm: true });
      assert.doesNotMatch(String(r.output ?? ''), /ENVSECRET/, `${command} printed .env`);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${command}: ${r.errorCode ?? 'ran'} ${r.error ?? ''}`);
      assert.equal(fs.readFileSync(path.join(t.ws, '.env'), 'utf8'), 'ENVSECRET\n', `${command} wrote .env`);
    }
  });

  test('the control: awk and sed programs that name no file run', async () => {
    for (const command of [`awk '{print $1}' ok.txt`, `sed 's/ok/yes/' ok.txt`, `sed -n '/r/p' ok.txt`, `awk 'BEGIN{print "ARG"}'`, `awk '$1 > "a" {print $1}' ok.txt`, `awk '{print "<a>"}' ok.txt`]) {
      const r = await run(command);
      assert.equal(r.errorCode, undefined, `${command}: ${r.errorCode} ${r.error}`);
    }
  });
});
