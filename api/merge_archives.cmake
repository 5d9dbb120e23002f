# cmake -DAR=ar -DMRI=script -P merge_archives.cmake: runs ar's MRI script
# (libofdmsim.a from the layers' archives, api/library.cmake).
execute_process(COMMAND ${AR} -M INPUT_FILE ${MRI} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ar -M ${MRI}: ${rc}")
endif()
