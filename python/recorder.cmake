# scope._recorder, the CPython extension that records from Python through
# libscope (python/scope/_recorder.c, docs/python.md).  Built where CMake
# finds Python's headers (python3-dev), into build/python/scope/ beside a
# copy of the package's Python files, so that PYTHONPATH=build/python
# imports the package as built (the tests do).
#
# The interpreter of the package (python/CMakeLists.txt, included before
# this): SCOPE_PYTHON where found, else Debian's python3, whose packages
# (scripts/setup.sh) the tests use, where one first on PATH (pyenv's, say)
# may lack them.
if(NOT DEFINED Python3_EXECUTABLE)
  if(SCOPE_PYTHON)
    set(Python3_EXECUTABLE ${SCOPE_PYTHON})
  elseif(EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
if(Python3_Development.Module_FOUND)
  set(SCOPE_PYTHON_BUILD_DIR ${PROJECT_BINARY_DIR}/python)
  Python3_add_library(scope_py_recorder MODULE WITH_SOABI ${CMAKE_CURRENT_LIST_DIR}/scope/_recorder.c)
  target_link_libraries(scope_py_recorder PRIVATE scope)
  # Python.h's own macros trip -Wextra's cast-function-type; the module's
  # code is held to the rest of the flags.
  target_compile_options(scope_py_recorder PRIVATE -Wno-cast-function-type -Wno-missing-field-initializers)
  set_target_properties(scope_py_recorder PROPERTIES
    OUTPUT_NAME _recorder
    LIBRARY_OUTPUT_DIRECTORY ${SCOPE_PYTHON_BUILD_DIR}/scope
    C_VISIBILITY_PRESET hidden)
  file(GLOB _scope_py_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/scope/*.py)
  set(_scope_py_copies)
  foreach(f ${_scope_py_files})
    get_filename_component(n ${f} NAME)
    add_custom_command(OUTPUT ${SCOPE_PYTHON_BUILD_DIR}/scope/${n}
                       COMMAND ${CMAKE_COMMAND} -E copy_if_different ${f} ${SCOPE_PYTHON_BUILD_DIR}/scope/${n}
                       DEPENDS ${f})
    list(APPEND _scope_py_copies ${SCOPE_PYTHON_BUILD_DIR}/scope/${n})
  endforeach()
  # The build tree's package reads the build's libscope-reader.so.1, so that
  # PYTHONPATH=build/python alone both records and reads (cmake --install
  # writes the installed package's own _libdir.py).
  file(GENERATE OUTPUT ${SCOPE_PYTHON_BUILD_DIR}/scope/_libdir.py
       CONTENT "# Written by CMake: the build tree's libscope-reader.so.1.\nLIBDIR = '$<TARGET_FILE_DIR:scope-reader>'\n")
  add_custom_target(scope_py_package ALL DEPENDS ${_scope_py_copies})
  add_dependencies(scope_py_recorder scope_py_package)
  # Installed with the package's Python files (python/CMakeLists.txt, which
  # sets SCOPE_PYTHON_SITEDIR: where this Python looks for packages under the
  # prefix, so `cmake --install --prefix P` writes nothing outside P); the
  # module finds the libscope.so installed with it through a relative RUNPATH.
  if(SCOPE_PYTHON_SITEDIR)
    file(RELATIVE_PATH _py_to_lib ${CMAKE_INSTALL_PREFIX}/${SCOPE_PYTHON_SITEDIR}/scope
         ${CMAKE_INSTALL_FULL_LIBDIR})
    set_target_properties(scope_py_recorder PROPERTIES INSTALL_RPATH "$ORIGIN/${_py_to_lib}")
    install(TARGETS scope_py_recorder LIBRARY DESTINATION ${SCOPE_PYTHON_SITEDIR}/scope)
  endif()
  # A sanitized build's extension needs the ASan runtime loaded before the
  # interpreter, which is not built with it (tests/python/with_sanitizer.sh).
  set(SCOPE_PYTHON_TEST_ENV "")
  if(SCOPE_SANITIZE)
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                    OUTPUT_VARIABLE _asan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(SCOPE_PYTHON_TEST_ENV "SCOPE_ASAN_RUNTIME=${_asan_rt}")
  endif()
else()
  message(STATUS "Python 3 headers not found (python3-dev): scope._recorder is not built")
endif()
