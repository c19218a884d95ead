# Generates the gSOAP code of the WSDL (rpc.cmake, "SOAP"); run as `cmake -P` with WSDL2H,
# SOAPCPP2, WSDL, TYPEMAP and OUT defined. wsdl2h and soapcpp2 print a banner and their progress
# on every run; that is shown only when one of them fails, so the build's output stays clean.
function(run_quietly)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}):\n${out}")
  endif()
endfunction()

file(MAKE_DIRECTORY "${OUT}")
run_quietly("${WSDL2H}" -c++11 -x -qipclab_soap -t "${TYPEMAP}" -o "${OUT}/ipclab_soap.h" "${WSDL}")
run_quietly("${SOAPCPP2}" -c++11 -j -x -w -L -d "${OUT}" "${OUT}/ipclab_soap.h")
# Generated code in a C++ namespace leaves out the global SOAP Header and Fault serializers that
# libgsoap++ calls; soapcpp2 makes them from an empty header (gSOAP's "env" module).
file(WRITE "${OUT}/env.h" "")
run_quietly("${SOAPCPP2}" -c++11 -penv -x -w -L -d "${OUT}" "${OUT}/env.h")
