#!/usr/bin/env bash
# Formats our C++ with clang-format and .clang-format (STYLE.md: Google base, indent 4, 100
# columns). usage: scripts/format.sh [--check] [FILE...]
#   (no files)  every .h and .cpp git tracks or would add (new files too, not the ignored)
#   --check     change nothing; list the files that are not formatted and exit 1 if any
# scripts/test.sh runs the check; scripts/install-deps.sh installs clang-format-14.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = "--check" ]; then
    check=1
    shift
fi
cf="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$cf" ]; then
    echo "format.sh: clang-format not found (scripts/install-deps.sh installs clang-format-14)" >&2
    exit 2
fi
if [ $# -gt 0 ]; then
    files=("$@")
elif git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # New files as well: a file formatted only once committed fails a fresh clone's check.
    mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.h' '*.cpp')
else
    mapfile -t files < <(find models platforms testbenches tests fuzz rtl -name '*.h' -o -name '*.cpp' | sort)
fi
if [ "$check" = 0 ]; then
    "$cf" --style=file -i "${files[@]}"
    exit 0
fi
bad=()
for f in "${files[@]}"; do
    "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    echo "not formatted (run scripts/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "format: ${#files[@]} files formatted"
