// stream_probe: what a barrier between dependent dispatches costs on a
// Vulkan device, against in-stream waits (a later dispatch's workgroups
// wait on an earlier dispatch's counter instead of a pipeline barrier).
//
// Runs chains of dependent K x K f16 matrix-vector products (chain.comp),
// one dispatch per level, in three modes, and prints GPU µs per level:
//   barrier        a compute barrier between levels (what mgc records now)
//   barrier+wait   the barrier and the counters (the protocol's own cost)
//   stream         no barrier: each level's workgroups issue their weight
//                  loads, then wait on the previous level's counter
// The chains' results must be identical in every mode, and no wait may
// time out; either failure exits 1.
//
// Usage: stream_probe CHAIN_SPV [--k 576,4096] [--levels 64] [--runs 100]
//                    [--device N]
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "stream_probe: %s\n", m.c_str());
  std::exit(2);
}
void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) die(std::string(what) + " failed: VkResult " + std::to_string(int(r)));
}

struct Buffer {
  VkBuffer buf = VK_NULL_HANDLE;
  VkDeviceMemory mem = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* map = nullptr;
};

struct Gpu {
  VkInstance instance{};
  VkPhysicalDevice phys{};
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties memProps{};
  uint32_t family = 0, subgroup = 0;
  VkDevice dev{};
  VkQueue queue{};
  VkCommandPool pool{};

  Buffer buffer(VkDeviceSize size, bool host) {
    Buffer b;
    b.size = size;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    check(vkCreateBuffer(dev, &bi, nullptr, &b.buf), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b.buf, &req);
    const VkMemoryPropertyFlags want = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                            : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = ~0u;
    for (uint32_t i = 0; i < memProps.memoryTypeCount && type == ~0u; ++i)
      if ((req.memoryTypeBits & (1u << i)) && (memProps.memoryTypes[i].propertyFlags & want) == want) type = i;
    if (type == ~0u) die("no memory type");
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    check(vkAllocateMemory(dev, &ai, nullptr, &b.mem), "vkAllocateMemory");
    check(vkBindBufferMemory(dev, b.buf, b.mem, 0), "vkBindBufferMemory");
    if (host) check(vkMapMemory(dev, b.mem, 0, size, 0, &b.map), "vkMapMemory");
    return b;
  }
  void release(Buffer& b) {
    if (b.map) vkUnmapMemory(dev, b.mem);
    vkDestroyBuffer(dev, b.buf, nullptr);
    vkFreeMemory(dev, b.mem, nullptr);
    b = Buffer();
  }
  VkCommandBuffer begin() {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    check(vkAllocateCommandBuffers(dev, &ai, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    return cmd;
  }
  void submit(VkCommandBuffer cmd) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    check(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit");
    check(vkQueueWaitIdle(queue), "vkQueueWaitIdle");
  }
};

void memoryBarrier(VkCommandBuffer cmd) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  const VkPipelineStageFlags s = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  vkCmdPipelineBarrier(cmd, s, s, 0, 1, &b, 0, nullptr, 0, nullptr);
}

Gpu openGpu(int index) {
  Gpu g;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ii.pApplicationInfo = &app;
  check(vkCreateInstance(&ii, nullptr, &g.instance), "vkCreateInstance");
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(g.instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devs(n);
  vkEnumeratePhysicalDevices(g.instance, &n, devs.data());
  if (n == 0) die("no Vulkan device");
  if (index >= int(n)) die("no device " + std::to_string(index));
  g.phys = devs[index];
  vkGetPhysicalDeviceProperties(g.phys, &g.props);
  vkGetPhysicalDeviceMemoryProperties(g.phys, &g.memProps);
  VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  p2.pNext = &sub;
  vkGetPhysicalDeviceProperties2(g.phys, &p2);
  g.subgroup = sub.subgroupSize;
  vkGetPhysicalDeviceQueueFamilyProperties(g.phys, &n, nullptr);
  std::vector<VkQueueFamilyProperties> fams(n);
  vkGetPhysicalDeviceQueueFamilyProperties(g.phys, &n, fams.data());
  g.family = ~0u;
  for (uint32_t i = 0; i < n && g.family == ~0u; ++i)
    if ((fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && fams[i].timestampValidBits > 0) g.family = i;
  if (g.family == ~0u) die("no compute queue with timestamps");
  const float prio = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = g.family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &prio;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  check(vkCreateDevice(g.phys, &di, nullptr, &g.dev), "vkCreateDevice");
  vkGetDeviceQueue(g.dev, g.family, 0, &g.queue);
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = g.family;
  check(vkCreateCommandPool(g.dev, &pi, nullptr, &g.pool), "vkCreateCommandPool");
  return g;
}

std::vector<uint32_t> readSpirv(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) die(std::string("cannot read ") + path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string s = ss.str();
  if (s.size() % 4 || s.size() < 20) die(std::string(path) + " is not SPIR-V");
  std::vector<uint32_t> w(s.size() / 4);
  std::memcpy(w.data(), s.data(), s.size());
  return w;
}

std::vector<int> parseList(const char* s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

struct PushConstants {
  uint32_t level, waitCount, K, slab, flagSlot;
};

uint16_t toHalf(float f) {  // values in [-1, 1]: normal or zero halves
  if (std::fabs(f) < 6.2e-5f) return 0;
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u, exp = ((x >> 23) & 0xffu) - 127 + 15, mant = (x >> 13) & 0x3ffu;
  return uint16_t(sign | (exp << 10) | mant);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: stream_probe CHAIN_SPV [--k 576,4096] [--levels 64] [--runs 100] [--device N]");
  std::vector<int> ks = {576, 4096};
  int levels = 64, runs = 100, device = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--k") ks = parseList(argv[i + 1]);
    else if (a == "--levels") levels = std::atoi(argv[i + 1]);
    else if (a == "--runs") runs = std::atoi(argv[i + 1]);
    else if (a == "--device") device = std::atoi(argv[i + 1]);
    else die("unknown option " + a);
  }
  if (levels < 2 || runs < 1) die("--levels >= 2, --runs >= 1");
  Gpu g = openGpu(device);
  std::printf("device: %s (subgroup %u)\n", g.props.deviceName, g.subgroup);

  const std::vector<uint32_t> spirv = readSpirv(argv[1]);
  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * 4;
  mi.pCode = spirv.data();
  VkShaderModule module;
  check(vkCreateShaderModule(g.dev, &mi, nullptr, &module), "vkCreateShaderModule");
  VkDescriptorSetLayoutBinding lb[3]{};
  for (uint32_t i = 0; i < 3; ++i) {
    lb[i].binding = i;
    lb[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    lb[i].descriptorCount = 1;
    lb[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo sli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  sli.bindingCount = 3;
  sli.pBindings = lb;
  VkDescriptorSetLayout setLayout;
  check(vkCreateDescriptorSetLayout(g.dev, &sli, nullptr, &setLayout), "vkCreateDescriptorSetLayout");
  VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &setLayout;
  pli.pushConstantRangeCount = 1;
  pli.pPushConstantRanges = &pcr;
  VkPipelineLayout layout;
  check(vkCreatePipelineLayout(g.dev, &pli, nullptr, &layout), "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.layout = layout;
  VkPipeline pipeline;
  check(vkCreateComputePipelines(g.dev, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline), "vkCreateComputePipelines");
  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &ps;
  VkQueryPoolCreateInfo qpi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qpi.queryCount = 2;
  VkQueryPool queries;
  check(vkCreateQueryPool(g.dev, &qpi, nullptr, &queries), "vkCreateQueryPool");

  std::printf("| K | levels | workgroups / level | barrier µs / level | barrier+wait | stream | stream / barrier |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (int K : ks) {
    if (K % 64 != 0 || K > 4096 || K < 64) die("K must be a multiple of 64 in [64, 4096]");
    const uint32_t rowsPerGroup = 256 / g.subgroup, groups = (uint32_t(K) + rowsPerGroup - 1) / rowsPerGroup;
    const uint64_t slabBytes = uint64_t(K) * K * 2;
    const int slabs = int(std::max<uint64_t>(1, std::min<uint64_t>(levels, (256ull << 20) / slabBytes)));
    Buffer counters = g.buffer(4 * (levels + 2), false), acts = g.buffer(4ull * K * (levels + 1), false);
    Buffer weights = g.buffer(slabBytes * slabs, false);
    Buffer staging = g.buffer(std::max<uint64_t>(slabBytes * slabs, 4ull * K * (levels + 1)), true);
    {  // weights and y_0
      std::mt19937 rng(7);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      uint16_t* h = static_cast<uint16_t*>(staging.map);
      for (uint64_t i = 0; i < slabBytes / 2 * slabs; ++i) h[i] = toHalf(u(rng));
      VkCommandBuffer cmd = g.begin();
      VkBufferCopy c{0, 0, slabBytes * slabs};
      vkCmdCopyBuffer(cmd, staging.buf, weights.buf, 1, &c);
      check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
      g.submit(cmd);
      float* y = static_cast<float*>(staging.map);
      for (int k = 0; k < K; ++k) y[k] = u(rng);
      cmd = g.begin();
      c = {0, 0, 4ull * K};
      vkCmdCopyBuffer(cmd, staging.buf, acts.buf, 1, &c);
      check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
      g.submit(cmd);
    }
    VkDescriptorPool dpool;
    check(vkCreateDescriptorPool(g.dev, &dpi, nullptr, &dpool), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo dai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dai.descriptorPool = dpool;
    dai.descriptorSetCount = 1;
    dai.pSetLayouts = &setLayout;
    VkDescriptorSet set;
    check(vkAllocateDescriptorSets(g.dev, &dai, &set), "vkAllocateDescriptorSets");
    VkDescriptorBufferInfo infos[3] = {{counters.buf, 0, VK_WHOLE_SIZE}, {acts.buf, 0, VK_WHOLE_SIZE},
                                       {weights.buf, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.descriptorCount = 3;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = infos;
    vkUpdateDescriptorSets(g.dev, 1, &w, 0, nullptr);

    double perLevel[3] = {0, 0, 0};
    std::vector<float> reference;
    for (int mode = 0; mode < 3; ++mode) {
      const bool waits = mode >= 1, barriers = mode <= 1;
      VkCommandBuffer cmd = g.begin();
      vkCmdResetQueryPool(cmd, queries, 0, 2);
      vkCmdFillBuffer(cmd, counters.buf, 0, VK_WHOLE_SIZE, 0);
      memoryBarrier(cmd);
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 0);
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
      for (int l = 1; l <= levels; ++l) {
        if (l > 1 && barriers) memoryBarrier(cmd);
        PushConstants pc{uint32_t(l), waits && l > 1 ? groups : 0u, uint32_t(K), uint32_t((l - 1) % slabs),
                         uint32_t(levels + 1)};
        vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
        vkCmdDispatch(cmd, groups, 1, 1);
      }
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
      memoryBarrier(cmd);
      VkBufferCopy c{4ull * K * levels, 0, 4ull * K};
      vkCmdCopyBuffer(cmd, acts.buf, staging.buf, 1, &c);
      c = {4ull * (levels + 1), 4ull * K, 4};
      vkCmdCopyBuffer(cmd, counters.buf, staging.buf, 1, &c);
      VkMemoryBarrier hb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0, nullptr, 0,
                           nullptr);
      check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
      std::vector<double> times;
      for (int r = 0; r < runs + 5; ++r) {
        g.submit(cmd);
        uint64_t ts[2];
        check(vkGetQueryPoolResults(g.dev, queries, 0, 2, sizeof ts, ts, 8, VK_QUERY_RESULT_64_BIT), "queries");
        if (r >= 5) times.push_back(double(ts[1] - ts[0]) * g.props.limits.timestampPeriod * 1e-3);
        const uint32_t flag = static_cast<uint32_t*>(staging.map)[K];
        if (flag != 0) {
          std::fprintf(stderr, "stream_probe: K %d mode %d: a wait of level %u timed out\n", K, mode, flag);
          ++failures;
          break;
        }
      }
      const float* y = static_cast<float*>(staging.map);
      std::vector<float> got(y, y + K);
      if (mode == 0) reference = got;
      else if (std::memcmp(got.data(), reference.data(), 4ull * K) != 0) {
        std::fprintf(stderr, "stream_probe: K %d mode %d: the chain's result differs from the barrier mode's\n", K, mode);
        ++failures;
      }
      std::sort(times.begin(), times.end());
      perLevel[mode] = times.empty() ? 0 : times[times.size() / 2] / levels;
      vkFreeCommandBuffers(g.dev, g.pool, 1, &cmd);
    }
    std::printf("| %d | %d | %u | %.2f | %.2f | %.2f | %.2f |\n", K, levels, groups, perLevel[0], perLevel[1],
                perLevel[2], perLevel[0] > 0 ? perLevel[2] / perLevel[0] : 0.0);
    std::fflush(stdout);
    vkDestroyDescriptorPool(g.dev, dpool, nullptr);
    g.release(counters);
    g.release(acts);
    g.release(weights);
    g.release(staging);
  }
  return failures ? 1 : 0;
}
