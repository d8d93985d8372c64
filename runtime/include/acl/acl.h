/*
 * AscendSim: AscendCL umbrella header (acl/acl.h).
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "ops/acl_dvpp.h"

/* Current version of the AscendCL API that AscendSim implements. */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 15
#define ACL_PATCH_VERSION 0

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
