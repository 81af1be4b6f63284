# The first process of a shell command of toolgate (run by `bash -c`, outside the sandbox,
# where /sys is writable): join the command's pids cgroup, or where there is none lower the
# process limit (which binds only users other than root); then become the launcher.
#   $1: the cgroup's cgroup.procs file, or empty for none
#   $2: the command line
#   $3: the process limit without a cgroup
#   the rest: the launcher (sandbox, lifeline shell), which gets the command line last.
if [ -n "$1" ]; then echo $$ > "$1" || exit 126; else ulimit -u "$3" 2>/dev/null; fi
c=$2
shift 3
exec "$@" "$c"
