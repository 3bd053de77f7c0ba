#!/bin/sh
# SPDX-License-Identifier: MIT
# test_remote_netns.sh RIG REMOTE_CLIENT: agent and client in two network
# namespaces joined by a veth pair, so the bytes cross a real (virtual)
# link rather than loopback: the agent listens in one, the client runs an
# add there from the other and checks it. Needs root and `ip netns`;
# exits 77 (skipped) without them.
set -u
rig=$1 client=$2
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "no ip(8): skipped"; exit 77; }
tag=$$
a=rigA$tag b=rigB$tag va=rva$tag vb=rvb$tag
work=$(mktemp -d)
agent=
cleanup() {
	[ -n "$agent" ] && kill "$agent" 2>/dev/null && wait "$agent" 2>/dev/null
	ip netns del "$a" 2>/dev/null
	ip netns del "$b" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
# meson stops a test past its timeout with SIGTERM: clean up then too (the
# EXIT trap alone leaves the agent running and both namespaces behind).
trap 'exit 143' TERM
trap 'exit 130' INT
if ! ip netns add "$a" 2>"$work/err"; then
	echo "ip netns add: $(cat "$work/err"): skipped"; exit 77
fi
ip netns add "$b" || exit 77
if ! ip link add "$va" type veth peer name "$vb" 2>"$work/err"; then
	echo "veth: $(cat "$work/err"): skipped"; exit 77
fi
ip link set "$va" netns "$a" && ip link set "$vb" netns "$b" || exit 1
ip -n "$a" addr add 10.231.7.1/24 dev "$va" && ip -n "$a" link set "$va" up &&
	ip -n "$a" link set lo up || exit 1
ip -n "$b" addr add 10.231.7.2/24 dev "$vb" && ip -n "$b" link set "$vb" up &&
	ip -n "$b" link set lo up || exit 1
printf 'the netns test key 0123456789\n' > "$work/key"
chmod 600 "$work/key"
ip netns exec "$a" "$rig" agent --listen 10.231.7.1:0 --key "$work/key" 2>"$work/log" &
agent=$!
for _ in $(seq 200); do
	grep -q "listening on" "$work/log" && break
	sleep 0.1
done
where=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$work/log" | head -1)
[ -n "$where" ] || { cat "$work/log"; echo "the agent did not listen"; exit 1; }
out=$(ip netns exec "$b" "$client" "$where" "$work/key" check 2>"$work/client.err")
rc=$?
cat "$work/log" "$work/client.err"
echo "$out"
[ $rc -eq 0 ] && [ "$out" = "ok" ] || exit 1
grep -q "client 10.231.7.2:[0-9]*: admitted" "$work/log" || { echo "no admission from the other namespace"; exit 1; }
echo "agent $where in $a, client in $b over veth: ok"
