#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shell completion for smrctl, in the shells themselves: bash (its
# completion function called as readline would), fish (complete -C) and
# zsh (loaded by compinit, and its definitions read). Every command of
# smrctl --help and every option of each `smrctl COMMAND --help` is offered
# by all three; device names come from the running daemon.
. "$(dirname "$0")/lib.sh"
need bash
need fish
need zsh

C=$SRCDIR/contrib
FIX=$SRCDIR/tests/fixtures/sysfs/mixed
BIN=$T/bin
mkdir -p "$BIN"
ln -s "$SMRCTL" "$BIN/smrctl"
export PATH=$BIN:$PATH

start_smrd --sysfs-root "$FIX/sys" --procfs-root "$FIX/proc" --udev-root "$FIX/udev" --exclude '^$'

step "what smrctl --help lists"
commands=$("$SMRCTL" --help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
say "  commands: $(echo $commands)"
check "smrctl --help lists the sixteen commands" [ "$(echo "$commands" | wc -w)" = 16 ]
declare -A OPTS
for c in $commands; do
	check "smrctl $c --help exits 0" bash -c "'$SMRCTL' $c --help >/dev/null"
	OPTS[$c]=$("$SMRCTL" "$c" --help | grep -oE '^  --[a-z-]+' | sed 's/^ *//' | sort -u | tr '\n' ' ')
done
say "  qualify's options: ${OPTS[qualify]}"

# bash_complete WORDS...: what the bash function offers for the last word
bash_complete() {
	SOCK=$SOCK bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_smrctl
		printf "%s\n" "${COMPREPLY[@]}"' _ "$C/bash-completion/smrctl" "$@" | sort -u | tr '\n' ' '
}
fish_complete() { fish -c "source '$C/fish-completion/smrctl.fish'; complete -C '$*'" | cut -f1 | sort -u | tr '\n' ' '; }

step "bash"
got=$(bash_complete smrctl "")
check "bash offers every command" bash -c "for c in $(echo $commands); do [[ ' $got ' == *' '\$c' '* ]] || exit 1; done"
for c in $commands; do
	got=$(bash_complete smrctl "$c" --)
	miss=$(for o in ${OPTS[$c]}; do [[ " $got " == *" $o "* ]] || echo -n "$o "; done)
	check "bash: smrctl $c -- offers every option of its --help${miss:+ (missing: $miss)}" [ -z "$miss" ]
done
got=$(bash_complete smrctl --socket "$SOCK" show "")
say "  smrctl show <TAB>: $got"
check "bash: show offers the watched disks, from the daemon" [ "$got" = "nvme0n1 sda sdb " ]
got=$(bash_complete smrctl --socket "$SOCK" events --device s)
check "bash: events --device offers them too" [ "$got" = "sda sdb " ]

step "fish"
check "fish parses it" fish -n "$C/fish-completion/smrctl.fish"
got=$(fish_complete smrctl "")
check "fish offers every command" bash -c "for c in $(echo $commands); do [[ ' $got ' == *' '\$c' '* ]] || exit 1; done"
for c in $commands; do
	got=$(fish_complete smrctl "$c" --)
	miss=$(for o in ${OPTS[$c]}; do [[ " $got " == *" $o "* ]] || echo -n "$o "; done)
	check "fish: smrctl $c -- offers every option of its --help${miss:+ (missing: $miss)}" [ -z "$miss" ]
done
# fish asks the default socket; point smrctl at ours through a wrapper
printf '#!/bin/sh\nexec %q --socket %q "$@"\n' "$SMRCTL" "$SOCK" >"$BIN/smrctl.tmp" && chmod +x "$BIN/smrctl.tmp" &&
	mv -f "$BIN/smrctl.tmp" "$BIN/smrctl"
got=$(fish_complete smrctl show "")
say "  smrctl show <TAB>: $got"
check "fish: show offers the watched disks, from the daemon" [ "$got" = "nvme0n1 sda sdb " ]

step "zsh"
check "zsh parses it" zsh -n "$C/zsh-completion/_smrctl"
check "compinit loads it as the completion of smrctl" zsh -f -c "
	fpath=('$C/zsh-completion' \$fpath); autoload -Uz compinit; compinit -u -d '$T/zcompdump'
	[[ \${_comps[smrctl]} == _smrctl ]]"
for c in $commands; do
	check "zsh knows the command $c" grep -q "'$c:" "$C/zsh-completion/_smrctl"
	miss=$(for o in ${OPTS[$c]}; do grep -q -- "'$o\[" "$C/zsh-completion/_smrctl" || echo -n "$o "; done)
	check "zsh: $c's options are all there${miss:+ (missing: $miss)}" [ -z "$miss" ]
done
stop_smrd
finish
