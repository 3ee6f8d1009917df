/* LD_PRELOADed by tools/ci_sanitize.sh: dlclose becomes a no-op, so the
 * libraries the Vulkan loader unloads at vkDestroyInstance (lavapipe, the
 * validation layer) are still mapped when LeakSanitizer reports at exit.
 * Without it their frames read "<unknown module>" and lsan.supp, which
 * names those libraries, cannot match them. (Vulkan loaders from 1.3.241
 * offer VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1 instead; Debian 12
 * ships 1.3.239.) */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
