#include "formats/bundle_writer.h"
