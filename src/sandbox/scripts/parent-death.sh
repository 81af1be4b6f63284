# toolgate's parent-death launcher, run by `sh -c` after `setpriv --pdeathsig KILL`: the
# signal is set now and kept across the exec below, but one set after the parent died would
# never fire, so go on only while the parent is still toolgate.
#   $1: toolgate's pid; the rest: the program to run and its arguments.
if [ "$PPID" != "$1" ]; then exit 125; fi
shift
exec "$@"
