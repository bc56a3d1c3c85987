# bash completion for zot
_zot()
{
    local cur prev words cword
    _init_completion -s || return

    local options='-p --print --json --version -h --help --provider --model --reasoning --auto-compact --base-url
        --api-key --api-key-file --cwd -e --ext --no-ext --watch --system-prompt --append-system-prompt
        --max-steps --max-retries --no-tools --tools --continue --session --no-session
        --continuous --codemode --codemode-only --yolo --no-yolo'

    case $prev in
        --provider) COMPREPLY=($(compgen -W 'anthropic openai gemini openrouter groq mistral deepseek xai together fireworks cerebras azure ollama lmstudio llamacpp vllm demo' -- "$cur")); return ;;
        --reasoning) COMPREPLY=($(compgen -W 'off minimum low medium high xhigh max' -- "$cur")); return ;;
        --auto-compact) COMPREPLY=($(compgen -W 'off 50 70 85 95' -- "$cur")); return ;;
        --codemode) COMPREPLY=($(compgen -W 'off on only' -- "$cur")); return ;;
        --cwd) _filedir -d; return ;;
        -e | --ext | --session | --api-key-file) _filedir; return ;;
        --model | --base-url | --api-key | --system-prompt | --append-system-prompt | \
            --max-steps | --max-retries | --tools) return ;;
    esac

    if [[ $cword -eq 1 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W 'ext models rpc update' -- "$cur"))
        return
    fi

    if [[ ${words[1]} == ext ]]; then
        if [[ $cword -eq 2 ]]; then
            COMPREPLY=($(compgen -W 'list install remove enable disable logs allow-key deny-key check stats new secret trust info permissions' -- "$cur"))
        elif [[ ${words[2]} == new && ( $prev == --lang || $prev == -l ) ]]; then
            COMPREPLY=($(compgen -W 'go python node ts c sh' -- "$cur"))
        elif [[ ${words[2]} == new && ( $prev == --dir || $prev == -d ) ]]; then
            _filedir -d
        elif [[ ( ${words[2]} == install || ${words[2]} == check ) && $cur != -* ]]; then
            _filedir -d
        else
            COMPREPLY=($(compgen -W '--project --force --build --yes --revoke --cwd -f --scenario --durable --json --lang --dir --help' -- "$cur"))
        fi
        return
    fi

    [[ $cur == -* ]] && COMPREPLY=($(compgen -W "$options" -- "$cur"))
} &&
    complete -F _zot zot
