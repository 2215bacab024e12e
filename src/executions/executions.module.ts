import { Module } from '@nestjs/common';
import { ExecutionService } from './execution.service';
import { ExecutionStore } from './execution.store';
import { MemoryExecutionStore } from './memory-execution.store';

@Module({
  providers: [{ provide: ExecutionStore, useFactory: () => new MemoryExecutionStore() }, ExecutionService],
  exports: [ExecutionService, ExecutionStore],
})
export class ExecutionsModule {}
