#include "rig_common.h"
int main(void) { return 0; }
