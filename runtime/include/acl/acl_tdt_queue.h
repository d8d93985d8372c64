/* AscendSim: AscendCL data queues (acl/acl_tdt_queue.h), the names, values and signatures of
 * CANN's header. A queue lives in a device's memory and holds at most `depth` buffers (default 8,
 * at least 2). From the host, acltdtEnqueueData copies a buffer host to device through the DMA
 * engine into the queue and acltdtDequeueData copies the oldest one back; both wait in simulated
 * time for room or for data, up to `timeout` ms (-1: without limit, 0: not at all). A bound route
 * moves each buffer entering its source queue on to its destination queue (the device's queue
 * scheduler). The mbuf functions (acltdtAllocBuf, acltdtEnqueue ...) are refused from the host
 * with ACL_ERROR_FEATURE_UNSUPPORTED, as CANN's host side does. See docs/runtime.md. */
#ifndef INC_EXTERNAL_ACL_ACL_TDT_QUEUE_H_
#define INC_EXTERNAL_ACL_ACL_TDT_QUEUE_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_TDT_QUEUE_PERMISSION_MANAGE 1
#define ACL_TDT_QUEUE_PERMISSION_DEQUEUE 2
#define ACL_TDT_QUEUE_PERMISSION_ENQUEUE 4

/* A route's status (ACL_TDT_QUEUE_ROUTE_STATUS_INT32). */
#define ACL_TDT_QUEUE_ROUTE_UNBIND 0
#define ACL_TDT_QUEUE_ROUTE_BIND 1
#define ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL 2

typedef void* acltdtBuf;
typedef struct tagMemQueueAttr acltdtQueueAttr;
typedef struct acltdtQueueRouteList acltdtQueueRouteList;
typedef struct acltdtQueueRouteQueryInfo acltdtQueueRouteQueryInfo;
typedef struct acltdtQueueRoute acltdtQueueRoute;

typedef enum { ACL_TDT_QUEUE_NAME_PTR = 0, ACL_TDT_QUEUE_DEPTH_UINT32 } acltdtQueueAttrType;

typedef enum {
  ACL_TDT_QUEUE_ROUTE_SRC_UINT32 = 0,
  ACL_TDT_QUEUE_ROUTE_DST_UINT32,
  ACL_TDT_QUEUE_ROUTE_STATUS_INT32
} acltdtQueueRouteParamType;

typedef enum {
  ACL_TDT_QUEUE_ROUTE_QUERY_SRC = 0,
  ACL_TDT_QUEUE_ROUTE_QUERY_DST = 1,
  ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST = 2,
  ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL = 100
} acltdtQueueRouteQueryMode;

typedef enum {
  ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM = 0,
  ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32,
  ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32
} acltdtQueueRouteQueryInfoParamType;

typedef enum { ACL_TDT_NORMAL_MEM = 0, ACL_TDT_DVPP_MEM } acltdtAllocBufType;

/* Queues of the current device: attr NULL gives the defaults (a name of the system's, depth 8). */
ACL_FUNC_VISIBILITY aclError acltdtCreateQueue(const acltdtQueueAttr* attr, uint32_t* qid);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueue(uint32_t qid);

/* Buffers made by acltdtAllocBuf (refused from the host: ACL_ERROR_FEATURE_UNSUPPORTED). */
ACL_FUNC_VISIBILITY aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout);
ACL_FUNC_VISIBILITY aclError acltdtDequeue(uint32_t qid, acltdtBuf* buf, int32_t timeout);

/* The program's memory: copied into the queue (data and user data) and back out. */
ACL_FUNC_VISIBILITY aclError acltdtEnqueueData(uint32_t qid, const void* data, size_t dataSize,
                                               const void* userData, size_t userDataSize,
                                               int32_t timeout, uint32_t rsv);
ACL_FUNC_VISIBILITY aclError acltdtDequeueData(uint32_t qid, void* data, size_t dataSize,
                                               size_t* retDataSize, void* userData,
                                               size_t userDataSize, int32_t timeout);

/* Sharing queues with other processes: not supported (ACL_ERROR_FEATURE_UNSUPPORTED), as CANN. */
ACL_FUNC_VISIBILITY aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission,
                                              int32_t timeout);
ACL_FUNC_VISIBILITY aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t* permission);

/* Routes: each route's status is written back into the list. */
ACL_FUNC_VISIBILITY aclError acltdtBindQueueRoutes(acltdtQueueRouteList* qRouteList);
ACL_FUNC_VISIBILITY aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList* qRouteList);
ACL_FUNC_VISIBILITY aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo* queryInfo,
                                                    acltdtQueueRouteList* qRouteList);

/* Message buffers (mbufs): refused from the host (ACL_ERROR_FEATURE_UNSUPPORTED), as CANN. */
ACL_FUNC_VISIBILITY aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf* buf);
ACL_FUNC_VISIBILITY aclError acltdtFreeBuf(acltdtBuf buf);
ACL_FUNC_VISIBILITY aclError acltdtGetBufData(const acltdtBuf buf, void** dataPtr, size_t* size);
ACL_FUNC_VISIBILITY aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len);
ACL_FUNC_VISIBILITY aclError acltdtGetBufDataLen(acltdtBuf buf, size_t* len);
ACL_FUNC_VISIBILITY aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf);
ACL_FUNC_VISIBILITY aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t* num);
ACL_FUNC_VISIBILITY aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index,
                                                   acltdtBuf* buf);
ACL_FUNC_VISIBILITY aclError acltdtGetBufUserData(const acltdtBuf buf, void* dataPtr, size_t size,
                                                  size_t offset);
ACL_FUNC_VISIBILITY aclError acltdtSetBufUserData(acltdtBuf buf, const void* dataPtr, size_t size,
                                                  size_t offset);
ACL_FUNC_VISIBILITY aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf* newBuf);

/* Queue attributes: ACL_TDT_QUEUE_NAME_PTR takes and gives a pointer (len: sizeof(char*)) to a
 * name of at most 127 characters; ACL_TDT_QUEUE_DEPTH_UINT32 a uint32_t. */
ACL_FUNC_VISIBILITY acltdtQueueAttr* acltdtCreateQueueAttr();
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueAttr(const acltdtQueueAttr* attr);
ACL_FUNC_VISIBILITY aclError acltdtSetQueueAttr(acltdtQueueAttr* attr, acltdtQueueAttrType type,
                                                size_t len, const void* param);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueAttr(const acltdtQueueAttr* attr,
                                                acltdtQueueAttrType type, size_t len,
                                                size_t* paramRetSize, void* param);

/* Routes, route lists and route queries. */
ACL_FUNC_VISIBILITY acltdtQueueRoute* acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRoute(const acltdtQueueRoute* route);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueRouteParam(const acltdtQueueRoute* route,
                                                      acltdtQueueRouteParamType type, size_t len,
                                                      size_t* paramRetSize, void* param);
ACL_FUNC_VISIBILITY acltdtQueueRouteList* acltdtCreateQueueRouteList();
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList* routeList);
ACL_FUNC_VISIBILITY aclError acltdtAddQueueRoute(acltdtQueueRouteList* routeList,
                                                 const acltdtQueueRoute* route);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueRoute(const acltdtQueueRouteList* routeList,
                                                 size_t index, acltdtQueueRoute* route);
ACL_FUNC_VISIBILITY size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList* routeList);
ACL_FUNC_VISIBILITY acltdtQueueRouteQueryInfo* acltdtCreateQueueRouteQueryInfo();
ACL_FUNC_VISIBILITY aclError
acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo* info);
ACL_FUNC_VISIBILITY aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo* param,
                                                          acltdtQueueRouteQueryInfoParamType type,
                                                          size_t len, const void* value);

#ifdef __cplusplus
}
#endif

#endif  // INC_EXTERNAL_ACL_ACL_TDT_QUEUE_H_
