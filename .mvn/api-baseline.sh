#!/usr/bin/env bash
# Puts the published modules of the last release (the API-compatibility check's baseline) into the
# local Maven repository, built from that release's tag in this clone's history, as if they had been
# downloaded from a repository. The root pom runs it first (validate); japicmp then compares each
# published module with the same artifact at the baseline version. Nothing happens when the
# baseline's jars are already there: a release never changes.
#
# usage: api-baseline.sh <tag> <version> <local repository> <published artifactIds, comma-separated>
set -euo pipefail
tag="$1" version="$2" repository="$3" modules="$4"
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

if ! git -C "$root" rev-parse -q --verify "refs/tags/$tag^{commit}" >/dev/null; then
  echo "The API-compatibility check compares with release $version, built from the tag $tag," >&2
  echo "which this clone does not have: fetch it (git fetch --tags origin; in GitHub Actions," >&2
  echo "actions/checkout with fetch-depth: 0), or skip the check with -Djapicmp.skip." >&2
  exit 1
fi

work="$root/target/api-baseline-$version"
rm -rf "$work"
mkdir -p "$work"
git -C "$root" archive --format=tar "$tag" | tar -x -C "$work"
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
