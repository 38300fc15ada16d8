#ifndef TASKSVISION_PROCESSOR_INFO_H
#define TASKSVISION_PROCESSOR_INFO_H

/// The processor the calling thread runs on, or -2 where the system does not say.
int tasksvision_current_processor(void);

#endif
