#!/usr/bin/env bash
# Puts the published modules of the last release (the API-compatibility check's baseline) into the
# local Maven repository, built from that release's tag in this clone's history, as if they had been
# downloaded from a repository. The root pom runs it first (validate); japicmp then compares each
# published module with the same artifact at the baseline version. Nothing happens when the
# baseline's jars are already there: a release never changes.
#
# usage: api-baseline.sh <tag> <commit> <version> <local repository> <published artifactIds, comma-separated>
# The commit is the tag's (a clone made without tags still has it in main's history).
set -euo pipefail
tag="$1" commit="$2" version="$3" repository="$4" modules="$5"
root="$(cd "$(dirname "$0")/.." && pwd)"

missing=()
IFS=, read -ra artifacts <<<"$modules"
for a in "${artifacts[@]}"; do
  [ -f "$repository/dev/fencing/$a/$version/$a-$version.jar" ] || missing+=("$a")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "API baseline $version: in $repository"
  exit 0
fi

tagged="$(git -C "$root" rev-parse -q --verify "refs/tags/$tag^{commit}" || true)"
if [ -n "$tagged" ] && [ "$tagged" != "$commit" ]; then
  echo "The tag $tag is commit $tagged here, but the root pom names $commit as release $version." >&2
  exit 1
fi
if ! git -C "$root" cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "The API-compatibility check compares with release $version, commit $commit (tag $tag)," >&2
  echo "which this clone does not have: fetch the whole history (git fetch --unshallow origin; in" >&2
  echo "GitHub Actions, actions/checkout with fetch-depth: 0), or skip the check with -Djapicmp.skip." >&2
  exit 1
fi

work="$root/target/api-baseline-$version"
rm -rf "$work"
mkdir -p "$work"
git -C "$root" archive --format=tar "$commit" | tar -x -C "$work"
echo "API baseline $version: building ${missing[*]} from $tag into $repository"
# main code only (the release's -Pdemo profile unbinds tests and checks); its own wrapper and poms
(
  cd "$work"
  unset MAVEN_PROJECTBASEDIR MAVEN_CMD_LINE_ARGS
  ./mvnw -B -ntp -q -Pdemo -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
    -Djapicmp.skip=true -Dmaven.repo.local="$repository" -pl "$modules" -am install
) > "$work.log" 2>&1 || {
  echo "The build of $tag failed; the end of $work.log:" >&2
  tail -40 "$work.log" >&2
  exit 1
}
rm -rf "$work"
