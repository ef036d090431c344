// A small Vulkan layer that lets Chromium's WebGPU (Dawn) pick Mesa's lavapipe, so that the
// browser specs run the app's engine on a real WebGPU adapter with shader-f16 on a CPU-only machine
// (tests/support/webgpu/ensure-webgpu.mjs builds it; docs/development.md says how it is loaded).
//
// Why Chromium 156 never picks lavapipe on its own, whatever its flags:
// 1. Dawn enumerates its bundled SwiftShader ICD first, and its adapter sort keeps that order
//    between two CPU adapters; Chromium takes the first adapter it can use, and SwiftShader always
//    qualifies.
// 2. Chromium also refuses any adapter other than SwiftShader without Dawn's external images:
//    external memory FD plus VK_KHR_external_semaphore_fd (OPAQUE_FD). lavapipe 25.0.7 has the
//    first, not the second.
//
// Only instances whose VkApplicationInfo.pEngineName equals SHIM_ENGINE (default "Dawn") are
// touched, so ANGLE and Skia in the same GPU process see the driver unchanged.
// SHIM_MODE=semfd (default): advertise VK_KHR_external_semaphore_fd (OPAQUE_FD import/export),
//   strip it again at vkCreateDevice, answer vkGetSemaphoreFdKHR / vkImportSemaphoreFdKHR with an
//   error (only external-image interop, e.g. a WebGPU canvas, would call them).
// SHIM_DISCRETE=1: also report the CPU device as VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, so Dawn's
//   sort puts it before SwiftShader (Chromium always passes a power preference). What the tests use.
// SHIM_MODE=swiftshader: report vendorID 0x1AE0 / deviceID 0xC0DE instead (Chromium then treats it
//   as SwiftShader, and the adapter reads google/swiftshader). Needs a Chromium without SwiftShader.
// SHIM_VERBOSE=1: log calls to stderr.
//
// Build: gcc -O2 -shared -fPIC -fvisibility=hidden -I<Vulkan-Headers 1.3.239 include>
//        -o libVkLayer_lmtab_chromium_lavapipe.so chromium-lavapipe-layer.c -lpthread
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define LAYER_NAME "VK_LAYER_LMTAB_chromium_lavapipe_shim"
#define FAKE_EXT "VK_KHR_external_semaphore_fd"
#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
  VkInstance instance;
  PFN_vkGetInstanceProcAddr gipa;
  int scoped;
  // Next-layer entry points, resolved inside vkCreateInstance: resolving them later through the
  // loader's terminator GIPA would answer the top of the chain (this layer) again.
  PFN_vkDestroyInstance DestroyInstance;
  PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
  PFN_vkEnumeratePhysicalDeviceGroups EnumeratePhysicalDeviceGroups;
  PFN_vkEnumeratePhysicalDeviceGroups EnumeratePhysicalDeviceGroupsKHR;
  PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties GetPhysicalDeviceExternalSemaphoreProperties;
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties GetPhysicalDeviceExternalSemaphorePropertiesKHR;
  PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
  PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
  PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2KHR;
} Inst;
typedef struct {
  VkPhysicalDevice pd;
  int inst;  // index into insts
} Phys;
typedef struct {
  VkDevice device;
  PFN_vkGetDeviceProcAddr gdpa;
  int scoped;
} Dev;

#define MAXN 256
static Inst insts[MAXN];
static int n_insts;
static Phys phys[MAXN * 4];
static int n_phys;
static Dev devs[MAXN];
static int n_devs;

static int verbose(void) {
  const char* v = getenv("SHIM_VERBOSE");
  return v && *v == '1';
}
static int mode_swiftshader(void) {
  const char* m = getenv("SHIM_MODE");
  return m && strcmp(m, "swiftshader") == 0;
}
static const char* engine(void) {
  const char* e = getenv("SHIM_ENGINE");
  return e ? e : "Dawn";
}

static Inst* find_inst(VkInstance instance) {
  for (int i = n_insts - 1; i >= 0; i--)
    if (insts[i].instance == instance) return &insts[i];
  return NULL;
}
static Inst* inst_of_pd(VkPhysicalDevice pd) {
  for (int i = n_phys - 1; i >= 0; i--)
    if (phys[i].pd == pd) return &insts[phys[i].inst];
  // Fallback: same dispatch key as an instance.
  void* key = *(void**)pd;
  for (int i = n_insts - 1; i >= 0; i--)
    if (insts[i].instance && *(void**)insts[i].instance == key) return &insts[i];
  return n_insts ? &insts[n_insts - 1] : NULL;
}
static Dev* find_dev(VkDevice device) {
  for (int i = n_devs - 1; i >= 0; i--)
    if (devs[i].device == device) return &devs[i];
  return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL shim_CreateInstance(const VkInstanceCreateInfo* ci,
                                                          const VkAllocationCallbacks* alloc,
                                                          VkInstance* out) {
  VkLayerInstanceCreateInfo* link = (VkLayerInstanceCreateInfo*)ci->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
                   link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerInstanceCreateInfo*)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
  VkResult r = create(ci, alloc, out);
  if (r != VK_SUCCESS) return r;
  const char* eng = ci->pApplicationInfo && ci->pApplicationInfo->pEngineName
                        ? ci->pApplicationInfo->pEngineName
                        : "";
  int scoped = strcmp(engine(), "*") == 0 || strcmp(eng, engine()) == 0;
  Inst rec = {*out, gipa, scoped};
#define R(n) rec.n = (void*)gipa(*out, "vk" #n);
  R(DestroyInstance) R(EnumeratePhysicalDevices) R(EnumeratePhysicalDeviceGroups)
  R(EnumeratePhysicalDeviceGroupsKHR) R(EnumerateDeviceExtensionProperties)
  R(GetPhysicalDeviceExternalSemaphoreProperties) R(GetPhysicalDeviceExternalSemaphorePropertiesKHR)
  R(GetPhysicalDeviceProperties) R(GetPhysicalDeviceProperties2) R(GetPhysicalDeviceProperties2KHR)
#undef R
  pthread_mutex_lock(&lock);
  if (n_insts < MAXN) insts[n_insts++] = rec;
  pthread_mutex_unlock(&lock);
  if (verbose())
    fprintf(stderr, "[shim] vkCreateInstance engine='%s' scoped=%d mode=%s\n", eng, scoped,
            mode_swiftshader() ? "swiftshader" : "semfd");
  return r;
}

static VKAPI_ATTR void VKAPI_CALL shim_DestroyInstance(VkInstance instance,
                                                       const VkAllocationCallbacks* alloc) {
  pthread_mutex_lock(&lock);
  Inst* in = find_inst(instance);
  pthread_mutex_unlock(&lock);
  if (!in) return;
  PFN_vkDestroyInstance destroy = in->DestroyInstance;
  destroy(instance, alloc);
  pthread_mutex_lock(&lock);
  in->instance = VK_NULL_HANDLE;  // keep slot; physical devices of it become stale
  pthread_mutex_unlock(&lock);
}

static void record_pds(Inst* in, uint32_t n, VkPhysicalDevice* pds) {
  pthread_mutex_lock(&lock);
  int idx = (int)(in - insts);
  for (uint32_t i = 0; i < n; i++) {
    int found = 0;
    for (int j = 0; j < n_phys; j++)
      if (phys[j].pd == pds[i]) {
        phys[j].inst = idx;
        found = 1;
      }
    if (!found && n_phys < MAXN * 4) phys[n_phys++] = (Phys){pds[i], idx};
  }
  pthread_mutex_unlock(&lock);
}

static VKAPI_ATTR VkResult VKAPI_CALL shim_EnumeratePhysicalDevices(VkInstance instance,
                                                                    uint32_t* count,
                                                                    VkPhysicalDevice* pds) {
  Inst* in = find_inst(instance);
  VkResult r = in->EnumeratePhysicalDevices(instance, count, pds);
  if (pds && (r == VK_SUCCESS || r == VK_INCOMPLETE)) record_pds(in, *count, pds);
  if (verbose() && pds) fprintf(stderr, "[shim] vkEnumeratePhysicalDevices scoped=%d -> %u\n", in->scoped, *count);
  return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL shim_EnumeratePhysicalDeviceGroups(
    VkInstance instance, uint32_t* count, VkPhysicalDeviceGroupProperties* groups) {
  Inst* in = find_inst(instance);
  PFN_vkEnumeratePhysicalDeviceGroups f = in->EnumeratePhysicalDeviceGroups;
  if (!f) f = in->EnumeratePhysicalDeviceGroupsKHR;
  if (!f) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult r = f(instance, count, groups);
  if (groups && (r == VK_SUCCESS || r == VK_INCOMPLETE))
    for (uint32_t i = 0; i < *count; i++)
      record_pds(in, groups[i].physicalDeviceCount, groups[i].physicalDevices);
  return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL shim_EnumerateDeviceExtensionProperties(
    VkPhysicalDevice pd, const char* layer, uint32_t* count, VkExtensionProperties* props) {
  if (layer && strcmp(layer, LAYER_NAME) == 0) {
    *count = 0;
    return VK_SUCCESS;
  }
  Inst* in = inst_of_pd(pd);
  PFN_vkEnumerateDeviceExtensionProperties next = in->EnumerateDeviceExtensionProperties;
  if (layer || !in->scoped || mode_swiftshader()) return next(pd, layer, count, props);
  uint32_t n = 0;
  VkResult r = next(pd, NULL, &n, NULL);
  if (r != VK_SUCCESS) return r;
  VkExtensionProperties* all = calloc(n + 1, sizeof(*all));
  r = next(pd, NULL, &n, all);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    free(all);
    return r;
  }
  int has = 0;
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(all[i].extensionName, FAKE_EXT) == 0) has = 1;
  if (verbose() && props) fprintf(stderr, "[shim] vkEnumerateDeviceExtensionProperties scoped: %u exts, has=%d\n", n, has);
  if (!has) {
    strcpy(all[n].extensionName, FAKE_EXT);
    all[n].specVersion = 1;
    n++;
  }
  if (!props) {
    *count = n;
    free(all);
    return VK_SUCCESS;
  }
  uint32_t c = *count < n ? *count : n;
  memcpy(props, all, c * sizeof(*all));
  *count = c;
  free(all);
  return c < n ? VK_INCOMPLETE : VK_SUCCESS;
}

static void fix_sem_props(VkPhysicalDevice pd, const VkPhysicalDeviceExternalSemaphoreInfo* info,
                          VkExternalSemaphoreProperties* out) {
  Inst* in = inst_of_pd(pd);
  if (!in->scoped || mode_swiftshader()) return;
  if (verbose()) fprintf(stderr, "[shim] ExternalSemaphoreProperties handleType=0x%x features=0x%x\n", info->handleType, out->externalSemaphoreFeatures);
  if (info->handleType == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT) {
    out->externalSemaphoreFeatures |=
        VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT;
    out->exportFromImportedHandleTypes |= VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    out->compatibleHandleTypes |= VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  }
}

static VKAPI_ATTR void VKAPI_CALL shim_GetPhysicalDeviceExternalSemaphoreProperties(
    VkPhysicalDevice pd, const VkPhysicalDeviceExternalSemaphoreInfo* info,
    VkExternalSemaphoreProperties* out) {
  Inst* in = inst_of_pd(pd);
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties f = in->GetPhysicalDeviceExternalSemaphoreProperties;
  if (!f) f = in->GetPhysicalDeviceExternalSemaphorePropertiesKHR;
  f(pd, info, out);
  fix_sem_props(pd, info, out);
}
static VKAPI_ATTR void VKAPI_CALL shim_GetPhysicalDeviceExternalSemaphorePropertiesKHR(
    VkPhysicalDevice pd, const VkPhysicalDeviceExternalSemaphoreInfo* info,
    VkExternalSemaphoreProperties* out) {
  Inst* in = inst_of_pd(pd);
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties f = in->GetPhysicalDeviceExternalSemaphorePropertiesKHR;
  if (!f) f = in->GetPhysicalDeviceExternalSemaphoreProperties;
  f(pd, info, out);
  fix_sem_props(pd, info, out);
}

static int discrete(void) {
  const char* d = getenv("SHIM_DISCRETE");
  return d && *d == '1';
}
static void spoof(VkPhysicalDevice pd, VkPhysicalDeviceProperties* p) {
  Inst* in = inst_of_pd(pd);
  if (!in->scoped) return;
  // SHIM_DISCRETE=1: report the CPU device as a discrete GPU, so that Dawn's SortAdapters (which
  // ranks CPU adapters last once a power preference is set, as Chromium always sets one) puts it
  // before SwiftShader, which Dawn enumerates first and loads without the Vulkan loader.
  if (discrete() && p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) p->deviceType = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  if (!mode_swiftshader()) return;
  if (p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    p->vendorID = 0x1AE0;
    p->deviceID = 0xC0DE;
  }
}
static VKAPI_ATTR void VKAPI_CALL shim_GetPhysicalDeviceProperties(VkPhysicalDevice pd,
                                                                   VkPhysicalDeviceProperties* p) {
  Inst* in = inst_of_pd(pd);
  in->GetPhysicalDeviceProperties(pd, p);
  spoof(pd, p);
}
static VKAPI_ATTR void VKAPI_CALL shim_GetPhysicalDeviceProperties2(VkPhysicalDevice pd,
                                                                    VkPhysicalDeviceProperties2* p) {
  Inst* in = inst_of_pd(pd);
  PFN_vkGetPhysicalDeviceProperties2 f = in->GetPhysicalDeviceProperties2;
  if (!f) f = in->GetPhysicalDeviceProperties2KHR;
  f(pd, p);
  spoof(pd, &p->properties);
}
static VKAPI_ATTR void VKAPI_CALL shim_GetPhysicalDeviceProperties2KHR(
    VkPhysicalDevice pd, VkPhysicalDeviceProperties2* p) {
  Inst* in = inst_of_pd(pd);
  PFN_vkGetPhysicalDeviceProperties2 f = in->GetPhysicalDeviceProperties2KHR;
  if (!f) f = in->GetPhysicalDeviceProperties2;
  f(pd, p);
  spoof(pd, &p->properties);
}

static VKAPI_ATTR VkResult VKAPI_CALL stub_GetSemaphoreFdKHR(VkDevice d,
                                                             const VkSemaphoreGetFdInfoKHR* i,
                                                             int* fd) {
  if (verbose()) fprintf(stderr, "[shim] vkGetSemaphoreFdKHR called (unsupported)\n");
  *fd = -1;
  return VK_ERROR_OUT_OF_HOST_MEMORY;
}
static VKAPI_ATTR VkResult VKAPI_CALL stub_ImportSemaphoreFdKHR(
    VkDevice d, const VkImportSemaphoreFdInfoKHR* i) {
  if (verbose()) fprintf(stderr, "[shim] vkImportSemaphoreFdKHR called (unsupported)\n");
  return VK_ERROR_INVALID_EXTERNAL_HANDLE;
}

static VKAPI_ATTR VkResult VKAPI_CALL shim_CreateDevice(VkPhysicalDevice pd,
                                                        const VkDeviceCreateInfo* ci,
                                                        const VkAllocationCallbacks* alloc,
                                                        VkDevice* out) {
  VkLayerDeviceCreateInfo* link = (VkLayerDeviceCreateInfo*)ci->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
                   link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerDeviceCreateInfo*)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  Inst* in = inst_of_pd(pd);
  PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(in->instance, "vkCreateDevice");
  VkDeviceCreateInfo copy = *ci;
  const char** names = NULL;
  int scoped = in->scoped && !mode_swiftshader();
  if (scoped) {
    names = calloc(ci->enabledExtensionCount + 1, sizeof(char*));
    uint32_t n = 0;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
      if (strcmp(ci->ppEnabledExtensionNames[i], FAKE_EXT) != 0)
        names[n++] = ci->ppEnabledExtensionNames[i];
    copy.enabledExtensionCount = n;
    copy.ppEnabledExtensionNames = names;
  }
  VkResult r = create(pd, &copy, alloc, out);
  free(names);
  if (verbose()) fprintf(stderr, "[shim] vkCreateDevice scoped=%d result=%d\n", in->scoped, r);
  if (r != VK_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  if (n_devs < MAXN) devs[n_devs++] = (Dev){*out, gdpa, scoped};
  pthread_mutex_unlock(&lock);
  return r;
}

static VKAPI_ATTR void VKAPI_CALL shim_DestroyDevice(VkDevice device,
                                                     const VkAllocationCallbacks* alloc) {
  pthread_mutex_lock(&lock);
  Dev* d = find_dev(device);
  pthread_mutex_unlock(&lock);
  if (!d) return;
  PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)d->gdpa(device, "vkDestroyDevice");
  destroy(device, alloc);
  pthread_mutex_lock(&lock);
  d->device = VK_NULL_HANDLE;
  pthread_mutex_unlock(&lock);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                                    const char* name);

static PFN_vkVoidFunction device_intercept(const char* name) {
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
  if (!strcmp(name, "vkDestroyDevice")) return (PFN_vkVoidFunction)shim_DestroyDevice;
  return NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                                    const char* name) {
  PFN_vkVoidFunction f = device_intercept(name);
  if (f) return f;
  pthread_mutex_lock(&lock);
  Dev* d = find_dev(device);
  pthread_mutex_unlock(&lock);
  if (!d) return NULL;
  if (d->scoped) {
    if (!strcmp(name, "vkGetSemaphoreFdKHR")) return (PFN_vkVoidFunction)stub_GetSemaphoreFdKHR;
    if (!strcmp(name, "vkImportSemaphoreFdKHR"))
      return (PFN_vkVoidFunction)stub_ImportSemaphoreFdKHR;
  }
  return d->gdpa(device, name);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance,
                                                                      const char* name) {
  pthread_mutex_lock(&lock);
  Inst* in = instance ? find_inst(instance) : NULL;
  pthread_mutex_unlock(&lock);
#define I(n, f) \
  if (!strcmp(name, n)) return (!in || in->gipa(instance, n)) ? (PFN_vkVoidFunction)f : NULL;
  I("vkGetInstanceProcAddr", vkGetInstanceProcAddr);
  I("vkCreateInstance", shim_CreateInstance);
  I("vkDestroyInstance", shim_DestroyInstance);
  I("vkEnumeratePhysicalDevices", shim_EnumeratePhysicalDevices);
  I("vkEnumeratePhysicalDeviceGroups", shim_EnumeratePhysicalDeviceGroups);
  I("vkEnumeratePhysicalDeviceGroupsKHR", shim_EnumeratePhysicalDeviceGroups);
  I("vkEnumerateDeviceExtensionProperties", shim_EnumerateDeviceExtensionProperties);
  I("vkGetPhysicalDeviceExternalSemaphoreProperties",
    shim_GetPhysicalDeviceExternalSemaphoreProperties);
  I("vkGetPhysicalDeviceExternalSemaphorePropertiesKHR",
    shim_GetPhysicalDeviceExternalSemaphorePropertiesKHR);
  I("vkGetPhysicalDeviceProperties", shim_GetPhysicalDeviceProperties);
  I("vkGetPhysicalDeviceProperties2", shim_GetPhysicalDeviceProperties2);
  I("vkGetPhysicalDeviceProperties2KHR", shim_GetPhysicalDeviceProperties2KHR);
  I("vkCreateDevice", shim_CreateDevice);
  I("vkGetDeviceProcAddr", vkGetDeviceProcAddr);
  I("vkDestroyDevice", shim_DestroyDevice);
#undef I
  if (!in) return NULL;
  return in->gipa(instance, name);
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* v) {
  if (v->loaderLayerInterfaceVersion > 2) v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
  v->pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
  v->pfnGetPhysicalDeviceProcAddr = NULL;
  return VK_SUCCESS;
}
