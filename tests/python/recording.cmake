# pytest on the package `scope` (Debian's python3-pytest), as built into
# build/python.  test_recording.py: scope.init/phase/count from Python.
if(TARGET scope_py_recorder)
  add_test(NAME python_recording
           COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${SCOPE_PYTHON_BUILD_DIR}
                   SCOPE_TUI=$<TARGET_FILE:scope-tui> ${SCOPE_PYTHON_TEST_ENV}
                   ${CMAKE_CURRENT_LIST_DIR}/with_sanitizer.sh ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_LIST_DIR}/test_recording.py)
  set_tests_properties(python_recording PROPERTIES TIMEOUT 180 LABELS python)
endif()
