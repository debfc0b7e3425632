# bash completion for dlsim (installed as share/bash-completion/completions/dlsim by
# `cmake --install`; or `source scripts/dlsim-completion.bash`). Options are read from
# `dlsim COMMAND --help` and policy and format names from `dlsim list`, so they follow the binary.
_dlsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} dlsim=${COMP_WORDS[0]}
  local commands
  commands="$("$dlsim" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}') help"
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
    return
  fi
  local command=${COMP_WORDS[1]}
  case $prev in
    --policy)
      mapfile -t COMPREPLY < <(compgen -W "$("$dlsim" list policies 2>/dev/null | awk '/^[a-z]/ {print $1}')" -- "$cur")
      return ;;
    --format)
      if [ "$command" = run ] || [ "$command" = validate ] || [ "$command" = gen-trace ]; then
        mapfile -t COMPREPLY < <(compgen -W "auto $("$dlsim" list formats 2>/dev/null | awk '{print $1}')" -- "$cur")
      elif [ "$command" = plot ]; then
        mapfile -t COMPREPLY < <(compgen -W "png svg pdf both all" -- "$cur")
      elif [ "$command" = table ]; then
        mapfile -t COMPREPLY < <(compgen -W "text csv markdown latex" -- "$cur")
      fi
      return ;;
    --events|--timeline|--gantt|--logx)
      mapfile -t COMPREPLY < <(compgen -W "auto on off" -- "$cur")
      return ;;
    --size)
      mapfile -t COMPREPLY < <(compgen -W "screen one-column two-column" -- "$cur")
      return ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$("$dlsim" "$command" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur")
    return
  fi
  if [ "$command" = list ] && [ "$COMP_CWORD" -eq 2 ]; then
    mapfile -t COMPREPLY < <(compgen -W "policies formats devices models placements keys" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  compopt -o filenames 2>/dev/null
}
complete -F _dlsim dlsim
