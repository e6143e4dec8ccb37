# Read by CTest after the tests gtest_discover_tests found in cute_tests (their names in cute_tests_TESTS): labels
# them host and cute (tests/cute/CMakeLists.txt says why). Where cute_tests was not built there are none.
if(cute_tests_TESTS)
  set_tests_properties(${cute_tests_TESTS} PROPERTIES LABELS "host;cute")
endif()
