#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs a command on a pseudo-terminal, as a user at a terminal would: waits
# for PROMPT (a regular expression) in its output, runs MISCHIEF (a shell
# command: what another process does while the user reads the prompt),
# then types ANSWER. Prints the command's output; exits with its code.
#   pty-answer.py PROMPT MISCHIEF ANSWER -- CMD...
import os, pty, re, select, subprocess, sys, time

prompt, mischief, answer = sys.argv[1], sys.argv[2], sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
out, answered, deadline = b"", False, time.time() + 60
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if not answered and re.search(prompt.encode(), out):
        answered = True
        rc = subprocess.call(mischief, shell=True)
        print(f"[mischief exited {rc}]", flush=True)
        os.write(fd, answer.encode() + b"\n")
else:
    os.kill(pid, 9)
    print("[timed out]")
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status) if answered else 99)
