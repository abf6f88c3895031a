#!/usr/bin/env bash
# The steps of the cmpc GitHub Action (action.yml), runnable anywhere: on the specs changed since
# CMPC_BASE, `cmpc fmt --check`, `cmpc check --format github`, `cmpc build --no-cache` and
# `cmpc diff --rev CMPC_BASE`. Writes CMPC_OUTPUT/comment.md, appends it to $GITHUB_STEP_SUMMARY
# when set, and exits 0 clean, 1 input errors, 2 usage or I/O, 3 when only policies failed.
#
# Environment: CMPC_BASE (required: a git revision), CMPC_SPECS (pathspec glob, default
# **/*.cmp), CMPC_REQUIRE and CMPC_FAIL_ON (policies, one per line), CMPC_OUTPUT (default
# cmpc-reports), CMPC (the cmpc command, default cmpc).
set -uo pipefail

base="${CMPC_BASE:?CMPC_BASE names the revision to diff against}"
pattern="${CMPC_SPECS:-**/*.cmp}"
out="${CMPC_OUTPUT:-cmpc-reports}"
cmpc="${CMPC:-cmpc}"
cd "$(git rev-parse --show-toplevel)" || exit 2
comment="$out/comment.md"
mkdir -p "$out" || exit 2

worst=0    # the highest of 1 and 2 seen
policy=0   # 3 seen
note() {
  case "$1" in
    0) ;;
    3) policy=3 ;;
    *) if [ "$1" -gt "$worst" ]; then worst="$1"; fi ;;
  esac
}
shown() { printf '%s' "$1" | tr -d '`\r\n'; }  # a path inside a Markdown code span

specs=()
while IFS= read -r -d '' path; do
  specs+=("$path")
done < <(git diff -z --name-only --diff-filter=d "$base" -- ":(glob)$pattern")

requires=()
while IFS= read -r line; do
  [ -n "${line// /}" ] && requires+=("--require=$line")
done <<< "${CMPC_REQUIRE:-}"
fail_on=()
while IFS= read -r line; do
  [ -n "${line// /}" ] && fail_on+=("--fail-on=$line")
done <<< "${CMPC_FAIL_ON:-}"

{
  echo "## cmpc: what this change does to the comparisons"
  echo
} > "$comment"

if [ "${#specs[@]}" -eq 0 ]; then
  echo "No spec matching \`$(shown "$pattern")\` changed since \`$(shown "$base")\`." >> "$comment"
else
  echo "::group::cmpc fmt --check"
  "$cmpc" fmt --check -- "${specs[@]/#/./}" > "$out/fmt.txt" 2>&1
  status=$?
  cat "$out/fmt.txt"
  echo "::endgroup::"
  note "$status"
  if [ "$status" -ne 0 ]; then
    {
      echo "**Not in canonical layout** (run \`cmpc fmt\` on them):"
      echo
      echo '```'
      cat "$out/fmt.txt"
      echo '```'
      echo
    } >> "$comment"
  fi

  echo "::group::cmpc check --format github"
  "$cmpc" check --format github -- "${specs[@]/#/./}"
  status=$?
  echo "::endgroup::"
  note "$status"
  if [ "$status" -ne 0 ]; then
    echo "**\`cmpc check\` found errors**: see the annotations on the changed lines." >> "$comment"
    echo >> "$comment"
  fi

  for spec in "${specs[@]}"; do
    name="$(printf '%s' "${spec%.cmp}" | tr '/' '_')"
    echo "### \`$(shown "$spec")\`" >> "$comment"
    echo >> "$comment"
    echo "::group::cmpc build $(shown "$spec")"
    "$cmpc" build -o "$out/$name" --no-cache --quiet --diagnostics github "${requires[@]}" \
      -- "./$spec"
    status=$?
    echo "::endgroup::"
    note "$status"
    if [ "$status" -eq 3 ]; then
      echo "**A \`--require\` policy failed** (exit 3): see the build's annotations." >> "$comment"
      echo >> "$comment"
    elif [ "$status" -ne 0 ]; then
      echo "The spec does not build (exit $status): see the annotations." >> "$comment"
      echo >> "$comment"
      continue
    fi
    if ! git cat-file -e "$base:$spec" 2>/dev/null; then
      echo "A new spec: nothing to compare with at \`$(shown "$base")\`." >> "$comment"
      echo >> "$comment"
      continue
    fi
    echo "::group::cmpc diff --rev $(shown "$base") $(shown "$spec")"
    "$cmpc" diff --rev "$base" "./$spec" --diagnostics github "${fail_on[@]}" \
      > "$out/$name.diff.md"
    status=$?
    echo "::endgroup::"
    note "$status"
    cat "$out/$name.diff.md" >> "$comment"
    if [ "$status" -eq 3 ]; then
      echo >> "$comment"
      echo "**A \`--fail-on\` policy failed** (exit 3): see the annotations." >> "$comment"
    elif [ "$status" -ne 0 ]; then
      echo "The diff failed (exit $status): see the annotations." >> "$comment"
    fi
    echo >> "$comment"
  done
fi

code="$worst"
if [ "$code" -eq 0 ]; then code="$policy"; fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$comment" >> "$GITHUB_STEP_SUMMARY"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "comment=$comment"; echo "exit-code=$code"; } >> "$GITHUB_OUTPUT"
fi
echo "cmpc review: wrote $comment (exit $code)"
exit "$code"
