#!/bin/bash
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
cd /work/wt-http
H=fencing-http/src/main/java/dev/fencing/http/internal
run() {
  name=$1
  ./mvnw -q -o -pl fencing-api,fencing-testkit,fencing-receiver,fencing-http test -DskipPitest=true -Dtest='HttpAuthenticationTest,HttpRoundTripTest,HttpRetryTest' -Dsurefire.failIfNoSpecifiedTests=false > /tmp/guard-$name.log 2>&1
  echo "== broken: $name"
  grep -hE "Tests run:.*in dev" fencing-http/target/surefire-reports/*.txt
  grep -hoE "^\[ERROR\]   [A-Za-z]+Test\.[A-Za-z]+[^:]*" /tmp/guard-$name.log | sort -u
  git checkout -q -- fencing-http/src/main
}
sed -i 's/if (!Signature.matches(expected, signature)) {/if (false \&\& !Signature.matches(expected, signature)) {/' $H/ReceiverHandler.java; git diff --stat; run signature
sed -i 's/if (Math.abs(now - timestamp) > window) {/if (false \&\& Math.abs(now - timestamp) > window) {/' $H/ReceiverHandler.java; git diff --stat; run window
sed -i 's/return previous\[0\] == null ? Verdict.FRESH : Verdict.REPLAYED;/return Verdict.FRESH;/' $H/NonceWindow.java; git diff --stat; run replay
python3 - <<'PY'
p='/work/wt-http/fencing-http/src/main/java/dev/fencing/http/internal/Responses.java'; s=open(p).read()
s=s.replace('''                    Wire.field(g, "outcome", "superseded");
                    Wire.field(g, "current", superseded.current().value());''','''                    Wire.field(g, "outcome", "accepted");
                    Wire.field(g, "repeat", false);''').replace("              409,","              200,")
open(p,'w').write(s)
PY
git diff --stat; run epoch-passthrough
