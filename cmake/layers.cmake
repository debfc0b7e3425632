# Which folders a library's sources may include, enforced by the compiler: each library sees only
# the folders of its own layer and of the libraries it links (docs/architecture.md#the-layers).
# There is no include path to the project's root; a layer's folder is reached through a
# directory of the build tree holding one symbolic link to it, so `#include "policies/fifo.h"`
# from the runtime fails with "No such file or directory" instead of building.
#
# dlsim_layer(TARGET FOLDER [EXCEPT SUBFOLDER...]) makes FOLDER (relative to the source root)
# includable by TARGET and everything that links it. With EXCEPT, FOLDER's entries are linked one
# by one and the subfolders named are left out: sim/cli, whose analysis commands sit below it
# but above it in the layers.
function(dlsim_layer target folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "EXCEPT")
  set(root ${CMAKE_BINARY_DIR}/layers/${target})
  set(link ${root}/${folder})
  get_filename_component(parent ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT arg_EXCEPT)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${link} SYMBOLIC)
  else()
    file(REMOVE_RECURSE ${link})
    file(MAKE_DIRECTORY ${link})
    file(GLOB entries LIST_DIRECTORIES true CONFIGURE_DEPENDS
         RELATIVE ${PROJECT_SOURCE_DIR}/${folder} ${PROJECT_SOURCE_DIR}/${folder}/*)
    foreach(entry IN LISTS entries)
      if(NOT entry IN_LIST arg_EXCEPT)
        file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder}/${entry} ${link}/${entry} SYMBOLIC)
      endif()
    endforeach()
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${root})
  else()
    target_include_directories(${target} PUBLIC ${root})
  endif()
endfunction()
