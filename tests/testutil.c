#include "testutil.h"

int test_passed = 0, test_failed = 0;

int test_finish(const char *name) {
  printf("%s: %d passed, %d failed\n", name, test_passed, test_failed);
  if (test_passed == 0 && test_failed == 0) {
    fprintf(stderr, "%s: no check ran\n", name);
    return 1;
  }
  return test_failed ? 1 : 0;
}
