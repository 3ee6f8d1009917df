#include "compiler/driver.h"
