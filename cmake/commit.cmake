# Writes OUT, a header defining DLSIM_COMMIT: the source tree's git commit (12 hex digits, with
# "-dirty" when tracked files differ from it), DLSIM_COMMIT_OVERRIDE when given (a packager
# building from a tarball), else "unknown". Run at every build (the dlsim_commit target); the
# file is rewritten only when the text changes, so an unchanged commit rebuilds nothing.
set(commit "unknown")
if(DEFINED COMMIT_OVERRIDE AND NOT COMMIT_OVERRIDE STREQUAL "")
  set(commit "${COMMIT_OVERRIDE}")
else()
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE head_rc ERROR_QUIET)
    if(head_rc EQUAL 0 AND NOT head STREQUAL "")
      set(commit "${head}")
      execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE changes RESULT_VARIABLE status_rc ERROR_QUIET)
      if(status_rc EQUAL 0 AND NOT changes STREQUAL "")
        set(commit "${commit}-dirty")
      endif()
    endif()
  endif()
endif()
set(text "#pragma once\n#define DLSIM_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
