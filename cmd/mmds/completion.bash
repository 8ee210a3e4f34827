__%[1]s_init_completion()
{
    COMPREPLY=()
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    # Plain bash splits words at = and : (COMP_WORDBREAKS); join them back,
    # as the bash-completion package does for -n =:.
    local i w glue=0
    words=()
    cword=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        if ((${#words[@]} > 0)) && [[ $w == "=" || $w == ":" || $glue == 1 ]]; then
            words[${#words[@]}-1]+=$w
            [[ $w == "=" || $w == ":" ]] && glue=1 || glue=0
        else
            words+=("$w")
            glue=0
        fi
        ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
    done
    cur=${words[cword]}
    prev=
    ((cword > 0)) && prev=${words[cword-1]}
    return 0
}

# __%[1]s_filedir completes file names: with -d folders only, else those
# whose extension is one of the |-separated list in $1 (and folders).
__%[1]s_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    # compgen's lines are read as they are: $(…) in an array would also
    # expand a name such as [m].json as a pattern.
    local ext c
    if [[ $1 == -d ]]; then
        while IFS= read -r c; do COMPREPLY+=("$c/"); done < <(compgen -d -- "$cur")
    else
        while IFS= read -r c; do
            [[ -d $c ]] && c+=/
            COMPREPLY+=("$c")
        done < <(compgen -f -- "$cur")
        if [[ -n $1 ]]; then
            local -a keep=()
            for c in "${COMPREPLY[@]}"; do
                for ext in ${1//|/ }; do
                    [[ $c == */ || $c == *."$ext" ]] && { keep+=("$c"); break; }
                done
            done
            COMPREPLY=("${keep[@]}")
        fi
    fi
    [[ $(type -t compopt) == builtin ]] && compopt -o nospace -o filenames 2>/dev/null
    return 0
}
