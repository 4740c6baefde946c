# scope._recorder, the CPython extension that records from Python through
# libscope (python/scope/_recorder.c, docs/python.md).  Built where CMake
# finds Python's headers (python3-dev), into build/python/scope/ beside a
# copy of the package's Python files, so that PYTHONPATH=build/python
# imports the package as built (the tests do).
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
    C_VISIBILITY_PRESET hidden
    INSTALL_RPATH ${CMAKE_INSTALL_FULL_LIBDIR})
  file(GLOB _scope_py_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/scope/*.py)
  set(_scope_py_copies)
  foreach(f ${_scope_py_files})
    get_filename_component(n ${f} NAME)
    add_custom_command(OUTPUT ${SCOPE_PYTHON_BUILD_DIR}/scope/${n}
                       COMMAND ${CMAKE_COMMAND} -E copy_if_different ${f} ${SCOPE_PYTHON_BUILD_DIR}/scope/${n}
                       DEPENDS ${f})
    list(APPEND _scope_py_copies ${SCOPE_PYTHON_BUILD_DIR}/scope/${n})
  endforeach()
  add_custom_target(scope_py_package ALL DEPENDS ${_scope_py_copies})
  add_dependencies(scope_py_recorder scope_py_package)
  install(TARGETS scope_py_recorder LIBRARY DESTINATION ${Python3_SITEARCH}/scope)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/scope/recording.py
                ${CMAKE_CURRENT_LIST_DIR}/scope/_phase_wrappers.py
          DESTINATION ${Python3_SITEARCH}/scope)
else()
  message(STATUS "Python 3 headers not found (python3-dev): scope._recorder is not built")
endif()
