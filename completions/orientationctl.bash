# bash completion for orientationctl(1)                      -*- shell-script -*-
_orientationctl() {
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
    }
    local commands="get monitor lock unlock replay record follow"
    local bus="--system --session --address"
    local orientations="normal left-up bottom-up right-up"
    case $prev in
        --address) return ;;
        --config | --output) _filedir 2>/dev/null || COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --preferred) COMPREPLY=($(compgen -W "$orientations" -- "$cur")); return ;;
        --supported)
            local done=${cur%,*} last=${cur##*,}
            [[ $cur == *,* ]] || done=""
            COMPREPLY=($(compgen -W "$orientations" -P "${done:+$done,}" -- "$last"))
            return ;;
        --seconds | --exec) return ;;
        --offset) COMPREPLY=($(compgen -W "0 90 180 270" -- "$cur")); return ;;
    esac
    local command="" word
    for word in "${words[@]:1:cword-1}"; do
        case " $commands " in *" $word "*) command=$word; break ;; esac
    done
    local options
    case $command in
        "") COMPREPLY=($(compgen -W "$commands $bus --help --version" -- "$cur")); return ;;
        get) options="--json" ;;
        monitor) options="--json --supported --preferred --no-follow-lock" ;;
        lock) options="--toggle" ;;
        unlock) options="" ;;
        replay) options="--config --no-gyro --explain --explain-all"
            if [[ $cur != -* ]]; then _filedir csv 2>/dev/null || COMPREPLY=($(compgen -f -- "$cur")); return; fi ;;
        record) options="--seconds --output" ;;
        follow) options="--sway --wlr-randr --exec --output --offset --restore --focused-app" ;;
    esac
    COMPREPLY=($(compgen -W "$options $bus --help" -- "$cur"))
}
complete -F _orientationctl orientationctl
