# Close every descriptor above 2 that toolgate's process inherited without close-on-exec,
# then exec the rest (run by `bash -c` before an interpreter starts: sandboxed code must not
# find an open file of the host's). bash, not sh: dash keeps a descriptor of its own open
# that the loop would close. 255 is bash's own.
#   the arguments: the program to run and its arguments.
fds=(/proc/$$/fd/*)
for f in "${fds[@]}"; do
  n=${f##*/}
  if (( n > 2 && n != 255 )); then { exec {n}>&-; } 2>/dev/null; fi
done
exec "$@"
