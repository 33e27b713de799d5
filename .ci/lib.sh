# Helpers shared by .ci/run and the scripts under .ci/envs/ (sourced, not run).

# apt_need "COMMAND:PACKAGE [PACKAGE...]" ...: install the Debian packages of every command
# that is missing, with one apt-get call.
apt_need() {
  local missing="" spec cmd
  for spec in "$@"; do
    cmd="${spec%%:*}"
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing ${spec#*:}"
  done
  [ -n "$missing" ] || return 0
  local sudo=""
  if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
  $sudo apt-get update -q
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing
}

# run_pytest LABEL COMMAND...: run a pytest command, fail CI when it fails, and add one line to
# the summary: the environment, what pytest's closing line says, and the seconds it took.
run_pytest() {
  local label="$1"
  shift
  local log start rc
  log="$(mktemp)"
  start=$SECONDS
  set +e
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  local closing
  closing="$(grep -E '^=+ .*(passed|failed|error|skipped|no tests ran).* in [0-9.]+s' "$log" | tail -n 1 | sed -E 's/^=+ //; s/ =+$//')"
  rm -f "$log"
  echo "${label}: ${closing:-no pytest summary} (exit ${rc}, $((SECONDS - start)) s)" >> "${CI_SUMMARY:-/dev/stdout}"
  if [ "$rc" != "0" ]; then
    echo "CI: ${label} failed (pytest exit ${rc})" >&2
    exit "$rc"
  fi
}

# installed COMMAND...: run an install command while no other lane installs (the environments
# run in parallel lanes, and an editable install writes the package's build metadata into the
# checkout, which two installs at once would race on)
installed() {
  flock "$(pwd)/.ci/.install.lock" "$@"
}
