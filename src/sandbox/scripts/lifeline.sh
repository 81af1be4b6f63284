# The lifeline of a shell command of toolgate (run by `bash -c`, inside the sandbox when there
# is one). Descriptor 3 is a socket whose other end only toolgate holds: a watcher reads it,
# and at end-of-file (toolgate died, `kill -9` included) kills what the command started. The
# command's shell does not keep descriptor 3.
#   $1: what to kill: -1 (in a sandbox: every process of its PID namespace) or 0 (without
#       one: the command's process group)
#   $2: the command line (the last argument), run by the user's login shell; or `--exec`
#       followed by a program and its arguments (three arguments or more), run as given:
#       toolgate's own programs, such as computer_use's Xvfb and browser, so that nothing of
#       the user's profile runs, or waits on a lock, before them
( [ -e /proc/$BASHPID/fd/3 ] || exit 0; read -r -u 3 _; kill -KILL "$1" ) & exec 3<&-
if [ "$#" -gt 2 ] && [ "$2" = --exec ]; then shift 2; exec -- "$@"; fi
exec bash -lc -- "$2"
