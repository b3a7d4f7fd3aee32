# Builds TARGET in BUILD_DIR and checks the outcome: EXPECT=success, or
# EXPECT=failure with the compiler's output containing MUST_SAY (so that the
# forbidden probe fails for the reason it tests, not any other).
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT STREQUAL "success")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TARGET} should build:\n${out}${err}")
  endif()
else()
  if(rc EQUAL 0)
    message(FATAL_ERROR "${TARGET} built, but its include crosses the layers: the stages are not enforced")
  endif()
  string(FIND "${out}${err}" "${MUST_SAY}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${TARGET} failed, but not on '${MUST_SAY}':\n${out}${err}")
  endif()
  message(STATUS "${TARGET} refused as expected: ${MUST_SAY}")
endif()
