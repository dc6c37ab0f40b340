/* Preloaded ahead of Oclgrind's runtime by tests/oclgrind.sh, so that Oclgrind 21.10's
 * uninitialized-value checker keeps an exact record of which bytes of global memory are defined.
 * Two faults of its plugin (docs/kernels.md, "How Oclgrind 21.10 tracks..."), both met here:
 *
 *  - A host-side store (a write, a copy, each pattern of a fill, a map for writing) replaces
 *    the record of the whole buffer by a fresh one of the store's size, left uninitialised,
 *    and marks it defined only when the store starts at the buffer's first byte. So every
 *    store that is not the whole buffer goes here through a kernel, whose stores the checker
 *    follows byte by byte: the bytes are put in a new buffer written whole, then copied into
 *    place by `store_bytes` (or `store_words` where all is 4-byte aligned).
 *  - A released buffer's record is kept for the next buffer Oclgrind puts in its slot, which
 *    then reads as defined where it is not (or the reverse). So no buffer is released: each
 *    new one takes a fresh slot, whose record starts undefined at its first kernel.
 *
 * Host stores still count as defining every byte they store, as Oclgrind has it (a copy of
 * undefined bytes makes them defined); kernels are checked exactly. For Oclgrind only: the
 * buffers it keeps are never freed.
 */
#define CL_TARGET_OPENCL_VERSION 120
#define _GNU_SOURCE
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* real(const char* name)
{
  void* f = dlsym(RTLD_NEXT, name);
  if (!f)
  {
    fprintf(stderr, "oclgrind_host_stores: %s not found after this library\n", name);
    abort();
  }
  return f;
}
#define REAL(name) ((__typeof__(&name))real(#name))

static const char* source =
  "__kernel void store_bytes(__global uchar* dst, ulong origin, ulong row_pitch,\n"
  "                          ulong slice_pitch, __global const uchar* src) {\n"
  "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
  "  size_t nx = get_global_size(0), ny = get_global_size(1);\n"
  "  dst[origin + x + y * row_pitch + z * slice_pitch] = src[x + nx * (y + ny * z)];\n"
  "}\n"
  "__kernel void store_words(__global uint* dst, ulong origin, ulong row_pitch,\n"
  "                          ulong slice_pitch, __global const uint* src) {\n"
  "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
  "  size_t nx = get_global_size(0), ny = get_global_size(1);\n"
  "  dst[origin + x + y * row_pitch + z * slice_pitch] = src[x + nx * (y + ny * z)];\n"
  "}\n";

/* One program per context, built on first use; kept, as everything here. */
struct program
{
  cl_context context;
  cl_kernel bytes, words;
  struct program* next;
};
static struct program* programs;

static struct program* program_for(cl_context context, cl_int* status)
{
  for (struct program* p = programs; p; p = p->next)
    if (p->context == context)
      return p;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, status);
  if (*status != CL_SUCCESS)
    return NULL;
  *status = clBuildProgram(program, 0, NULL, "", NULL, NULL);
  if (*status != CL_SUCCESS)
  {
    fprintf(stderr, "oclgrind_host_stores: the store kernels did not build (%d)\n", *status);
    return NULL;
  }
  struct program* p = calloc(1, sizeof *p);
  p->context = context;
  p->bytes = clCreateKernel(program, "store_bytes", status);
  if (*status == CL_SUCCESS)
    p->words = clCreateKernel(program, "store_words", status);
  if (*status != CL_SUCCESS)
  {
    free(p);
    return NULL;
  }
  p->next = programs;
  programs = p;
  return p;
}

/* The buffer a (sub-)buffer lies in, and where. */
static cl_int locate(cl_mem memory, cl_mem* root, size_t* offset)
{
  cl_mem parent = NULL;
  size_t origin = 0;
  cl_int status =
    clGetMemObjectInfo(memory, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  if (status == CL_SUCCESS && parent)
    status = clGetMemObjectInfo(memory, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
  *root = parent ? parent : memory;
  *offset = origin;
  return status;
}

static int whole_buffer(cl_mem memory, size_t offset, size_t size)
{
  cl_mem root;
  size_t base, total = 0;
  if (offset != 0 || locate(memory, &root, &base) != CL_SUCCESS || root != memory ||
      clGetMemObjectInfo(memory, CL_MEM_SIZE, sizeof total, &total, NULL) != CL_SUCCESS)
    return 0;
  return size == total;
}

/* Stores `packed` (region[0] x region[1] x region[2] bytes, rows contiguous) into `memory` at
 * `origin` bytes with the given pitches, by a kernel, after the events in `wait`. */
static cl_int store_by_kernel(cl_command_queue queue, cl_mem memory, size_t origin,
                              size_t row_pitch, size_t slice_pitch, const size_t region[3],
                              const void* packed, cl_bool blocking, cl_uint num_wait,
                              const cl_event* wait, cl_event* event)
{
  size_t bytes = region[0] * region[1] * region[2];
  if (bytes == 0)
    return CL_INVALID_VALUE;
  cl_context context;
  cl_int status = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, NULL);
  if (status != CL_SUCCESS)
    return status;
  cl_mem root;
  size_t base;
  if ((status = locate(memory, &root, &base)) != CL_SUCCESS)
    return status;
  origin += base;
  /* A buffer written whole is a clean record. */
  cl_mem staged = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                 (void*)packed, &status);
  if (status != CL_SUCCESS)
    return status;

  int words = origin % 4 == 0 && row_pitch % 4 == 0 && slice_pitch % 4 == 0 && region[0] % 4 == 0;
  size_t unit = words ? 4 : 1;
  cl_ulong args[3] = {origin / unit, row_pitch / unit, slice_pitch / unit};
  size_t global[3] = {region[0] / unit, region[1], region[2]};
  cl_event done = NULL;

  pthread_mutex_lock(&lock);
  struct program* p = program_for(context, &status);
  if (p)
  {
    cl_kernel kernel = words ? p->words : p->bytes;
    status = clSetKernelArg(kernel, 0, sizeof root, &root);
    for (int i = 0; i < 3 && status == CL_SUCCESS; ++i)
      status = clSetKernelArg(kernel, (cl_uint)(i + 1), sizeof args[i], &args[i]);
    if (status == CL_SUCCESS)
      status = clSetKernelArg(kernel, 4, sizeof staged, &staged);
    if (status == CL_SUCCESS)
      status = clEnqueueNDRangeKernel(queue, kernel, 3, NULL, global, NULL, num_wait, wait,
                                      &done);
  }
  pthread_mutex_unlock(&lock);
  if (status != CL_SUCCESS)
    return status;
  if (blocking)
    status = clWaitForEvents(1, &done);
  if (event)
    *event = done;
  else
    clReleaseEvent(done);
  return status;
}

cl_int clReleaseMemObject(cl_mem memory)
{
  return memory ? CL_SUCCESS : CL_INVALID_MEM_OBJECT;
}

cl_int clEnqueueWriteBuffer(cl_command_queue queue, cl_mem memory, cl_bool blocking,
                            size_t offset, size_t size, const void* ptr, cl_uint num_wait,
                            const cl_event* wait, cl_event* event)
{
  if (!ptr || size == 0 || whole_buffer(memory, offset, size))
    return REAL(clEnqueueWriteBuffer)(queue, memory, blocking, offset, size, ptr, num_wait,
                                      wait, event);
  size_t region[3] = {size, 1, 1};
  return store_by_kernel(queue, memory, offset, 0, 0, region, ptr, blocking, num_wait, wait,
                         event);
}

cl_int clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem memory, cl_bool blocking,
                                const size_t* buffer_origin, const size_t* host_origin,
                                const size_t* region, size_t buffer_row_pitch,
                                size_t buffer_slice_pitch, size_t host_row_pitch,
                                size_t host_slice_pitch, const void* ptr, cl_uint num_wait,
                                const cl_event* wait, cl_event* event)
{
  if (!ptr || !region || !buffer_origin || !host_origin || region[0] * region[1] * region[2] == 0)
    return REAL(clEnqueueWriteBufferRect)(queue, memory, blocking, buffer_origin, host_origin,
                                          region, buffer_row_pitch, buffer_slice_pitch,
                                          host_row_pitch, host_slice_pitch, ptr, num_wait, wait,
                                          event);
  /* OpenCL's defaults for pitches given as 0. */
  if (!buffer_row_pitch) buffer_row_pitch = region[0];
  if (!buffer_slice_pitch) buffer_slice_pitch = region[1] * buffer_row_pitch;
  if (!host_row_pitch) host_row_pitch = region[0];
  if (!host_slice_pitch) host_slice_pitch = region[1] * host_row_pitch;
  unsigned char* packed = malloc(region[0] * region[1] * region[2]);
  if (!packed)
    return CL_OUT_OF_HOST_MEMORY;
  const unsigned char* host = ptr;
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y)
      memcpy(packed + region[0] * (y + region[1] * z),
             host + host_origin[0] + (host_origin[1] + y) * host_row_pitch +
               (host_origin[2] + z) * host_slice_pitch,
             region[0]);
  size_t origin = buffer_origin[0] + buffer_origin[1] * buffer_row_pitch +
                  buffer_origin[2] * buffer_slice_pitch;
  cl_int status = store_by_kernel(queue, memory, origin, buffer_row_pitch, buffer_slice_pitch,
                                  region, packed, blocking, num_wait, wait, event);
  free(packed);
  return status;
}

cl_int clEnqueueCopyBuffer(cl_command_queue queue, cl_mem from, cl_mem to, size_t from_offset,
                           size_t to_offset, size_t size, cl_uint num_wait,
                           const cl_event* wait, cl_event* event)
{
  if (size == 0 || whole_buffer(to, to_offset, size))
    return REAL(clEnqueueCopyBuffer)(queue, from, to, from_offset, to_offset, size, num_wait,
                                     wait, event);
  void* bytes = malloc(size);
  if (!bytes)
    return CL_OUT_OF_HOST_MEMORY;
  cl_int status = clEnqueueReadBuffer(queue, from, CL_TRUE, from_offset, size, bytes, num_wait,
                                      wait, NULL);
  if (status == CL_SUCCESS)
  {
    size_t region[3] = {size, 1, 1};
    status = store_by_kernel(queue, to, to_offset, 0, 0, region, bytes, CL_FALSE, 0, NULL,
                             event);
  }
  free(bytes);
  return status;
}

cl_int clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem from, cl_mem to,
                               const size_t* from_origin, const size_t* to_origin,
                               const size_t* region, size_t from_row_pitch,
                               size_t from_slice_pitch, size_t to_row_pitch,
                               size_t to_slice_pitch, cl_uint num_wait, const cl_event* wait,
                               cl_event* event)
{
  if (!region || !from_origin || !to_origin || region[0] * region[1] * region[2] == 0)
    return REAL(clEnqueueCopyBufferRect)(queue, from, to, from_origin, to_origin, region,
                                         from_row_pitch, from_slice_pitch, to_row_pitch,
                                         to_slice_pitch, num_wait, wait, event);
  if (!to_row_pitch) to_row_pitch = region[0];
  if (!to_slice_pitch) to_slice_pitch = region[1] * to_row_pitch;
  unsigned char* packed = malloc(region[0] * region[1] * region[2]);
  if (!packed)
    return CL_OUT_OF_HOST_MEMORY;
  size_t host_origin[3] = {0, 0, 0};
  cl_int status = clEnqueueReadBufferRect(queue, from, CL_TRUE, from_origin, host_origin,
                                          region, from_row_pitch, from_slice_pitch, region[0],
                                          region[0] * region[1], packed, num_wait, wait, NULL);
  if (status == CL_SUCCESS)
  {
    size_t origin = to_origin[0] + to_origin[1] * to_row_pitch + to_origin[2] * to_slice_pitch;
    status = store_by_kernel(queue, to, origin, to_row_pitch, to_slice_pitch, region, packed,
                             CL_FALSE, 0, NULL, event);
  }
  free(packed);
  return status;
}

cl_int clEnqueueFillBuffer(cl_command_queue queue, cl_mem memory, const void* pattern,
                           size_t pattern_size, size_t offset, size_t size, cl_uint num_wait,
                           const cl_event* wait, cl_event* event)
{
  if (!pattern || pattern_size == 0 || size == 0 || size % pattern_size != 0)
    return REAL(clEnqueueFillBuffer)(queue, memory, pattern, pattern_size, offset, size,
                                     num_wait, wait, event);
  unsigned char* bytes = malloc(size);
  if (!bytes)
    return CL_OUT_OF_HOST_MEMORY;
  for (size_t i = 0; i < size; i += pattern_size)
    memcpy(bytes + i, pattern, pattern_size);
  size_t region[3] = {size, 1, 1};
  cl_int status = store_by_kernel(queue, memory, offset, 0, 0, region, bytes, CL_FALSE,
                                  num_wait, wait, event);
  free(bytes);
  return status;
}

/* Maps for writing are mapped for reading too (which leaves the record alone) and their bytes
 * stored by a kernel at the unmap, when the host has written them. */
struct mapping
{
  void* host;
  cl_mem memory;
  size_t offset, size;
  struct mapping* next;
};
static struct mapping* mappings;

void* clEnqueueMapBuffer(cl_command_queue queue, cl_mem memory, cl_bool blocking,
                         cl_map_flags flags, size_t offset, size_t size, cl_uint num_wait,
                         const cl_event* wait, cl_event* event, cl_int* status)
{
  int writes = (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) != 0;
  if (writes)
    flags = CL_MAP_READ | CL_MAP_WRITE;
  void* host = REAL(clEnqueueMapBuffer)(queue, memory, blocking, flags, offset, size, num_wait,
                                        wait, event, status);
  if (host && writes)
  {
    struct mapping* m = malloc(sizeof *m);
    *m = (struct mapping){host, memory, offset, size, NULL};
    pthread_mutex_lock(&lock);
    m->next = mappings;
    mappings = m;
    pthread_mutex_unlock(&lock);
  }
  return host;
}

cl_int clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem memory, void* host,
                               cl_uint num_wait, const cl_event* wait, cl_event* event)
{
  struct mapping* found = NULL;
  pthread_mutex_lock(&lock);
  for (struct mapping** m = &mappings; *m; m = &(*m)->next)
    if ((*m)->host == host && (*m)->memory == memory)
    {
      found = *m;
      *m = found->next;
      break;
    }
  pthread_mutex_unlock(&lock);
  if (!found)
    return REAL(clEnqueueUnmapMemObject)(queue, memory, host, num_wait, wait, event);
  /* The host may still be writing until the events in `wait`; its bytes are taken after them. */
  cl_int status = num_wait ? clWaitForEvents(num_wait, wait) : CL_SUCCESS;
  void* bytes = status == CL_SUCCESS ? malloc(found->size) : NULL;
  if (status == CL_SUCCESS && !bytes)
    status = CL_OUT_OF_HOST_MEMORY;
  if (status == CL_SUCCESS)
  {
    memcpy(bytes, host, found->size);
    status = REAL(clEnqueueUnmapMemObject)(queue, memory, host, 0, NULL, NULL);
  }
  if (status == CL_SUCCESS)
  {
    size_t region[3] = {found->size, 1, 1};
    status = store_by_kernel(queue, memory, found->offset, 0, 0, region, bytes, CL_FALSE, 0,
                             NULL, event);
  }
  free(bytes);
  free(found);
  return status;
}

/* A buffer over the host's memory has defined bytes from the start; Oclgrind records none. */
cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host,
                      cl_int* status)
{
  cl_int ignored;
  if (!status)
    status = &ignored;
  cl_mem memory = REAL(clCreateBuffer)(context, flags, size, host, status);
  if (!memory || !(flags & CL_MEM_USE_HOST_PTR) || !host || size == 0)
    return memory;
  cl_device_id device;
  *status = clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof device, &device, NULL);
  cl_command_queue queue =
    *status == CL_SUCCESS ? clCreateCommandQueue(context, device, 0, status) : NULL;
  void* copy = queue ? malloc(size) : NULL;
  if (queue && copy)
  {
    memcpy(copy, host, size);
    *status = REAL(clEnqueueWriteBuffer)(queue, memory, CL_TRUE, 0, size, copy, 0, NULL, NULL);
  }
  free(copy);
  if (queue)
    clReleaseCommandQueue(queue);
  return *status == CL_SUCCESS ? memory : NULL;
}
