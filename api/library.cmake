# libofdmsim: the layers below app/ as one library with one public header
# (api/ofdmsim.h), shared (libofdmsim.so, only the ofdmsim_* functions
# exported) and static (libofdmsim.a, every layer's archive in one), with a
# pkg-config file; included by the top CMakeLists.txt after the api target.

set(OFDMSIM_LIB_LAYERS ofdmsim_api ofdmsim_sim ofdmsim_results ofdmsim_config ofdmsim_cpu)
if(OFDMSIM_HAVE_CUDA)
  list(APPEND OFDMSIM_LIB_LAYERS ofdmsim_cuda)
endif()
list(APPEND OFDMSIM_LIB_LAYERS ofdmsim_coding ofdmsim_equalizer ofdmsim_channel ofdmsim_core)

# The shared library: the API's archive whole, the layers below as it needs them.
file(WRITE ${CMAKE_BINARY_DIR}/generated/ofdmsim_lib.c
     "/* libofdmsim.so: its functions come from the api archive (api/ofdmsim.h). */\n")
add_library(ofdmsim_shared SHARED ${CMAKE_BINARY_DIR}/generated/ofdmsim_lib.c)
target_link_libraries(ofdmsim_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ofdmsim_api>" ofdmsim_sim)
target_link_options(ofdmsim_shared PRIVATE -Wl,--version-script=${CMAKE_SOURCE_DIR}/api/libofdmsim.map
                    -Wl,--no-undefined)
set_target_properties(ofdmsim_shared PROPERTIES OUTPUT_NAME ofdmsim VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR} LINK_DEPENDS ${CMAKE_SOURCE_DIR}/api/libofdmsim.map)
if(OFDMSIM_HAVE_CUDA)
  set_target_properties(ofdmsim_shared PROPERTIES LINKER_LANGUAGE CUDA)
endif()

# The static library: the layers' archives merged (ar's MRI script).
set(ofdmsim_mri "create ${CMAKE_BINARY_DIR}/libofdmsim.a\n")
foreach(lib ${OFDMSIM_LIB_LAYERS})
  string(APPEND ofdmsim_mri "addlib $<TARGET_FILE:${lib}>\n")
endforeach()
string(APPEND ofdmsim_mri "save\nend\n")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/generated/libofdmsim.mri CONTENT "${ofdmsim_mri}")
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/libofdmsim.a
                   COMMAND ${CMAKE_COMMAND} -E rm -f ${CMAKE_BINARY_DIR}/libofdmsim.a
                   COMMAND ${CMAKE_COMMAND} -DAR=${CMAKE_AR} -DMRI=${CMAKE_BINARY_DIR}/generated/libofdmsim.mri
                           -P ${CMAKE_SOURCE_DIR}/api/merge_archives.cmake
                   DEPENDS ${OFDMSIM_LIB_LAYERS} ${CMAKE_BINARY_DIR}/generated/libofdmsim.mri
                           ${CMAKE_SOURCE_DIR}/api/merge_archives.cmake
                   COMMENT "Merging the layers into libofdmsim.a")
add_custom_target(ofdmsim_static ALL DEPENDS ${CMAKE_BINARY_DIR}/libofdmsim.a)

# pkg-config: what a program linking either library needs.
set(OFDMSIM_PC_PRIVATE "-lconfig -lfftw3f -ljansson -lgomp -lpthread -lm")
if(OFDMSIM_HAVE_CUDA)
  string(APPEND OFDMSIM_PC_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcufft -lcudart -lstdc++")
endif()

# After GNUInstallDirs, which names the folders.
function(ofdmsim_install_library)
  # relocatable: the prefix is where the .pc file lies (cmake --install --prefix P)
  file(RELATIVE_PATH OFDMSIM_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" OFDMSIM_PC_UP "${OFDMSIM_PC_UP}")
  configure_file(${CMAKE_SOURCE_DIR}/api/ofdmsim.pc.in ${CMAKE_BINARY_DIR}/ofdmsim.pc @ONLY)
  install(TARGETS ofdmsim_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CMAKE_BINARY_DIR}/libofdmsim.a DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CMAKE_SOURCE_DIR}/api/ofdmsim.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${CMAKE_BINARY_DIR}/ofdmsim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
