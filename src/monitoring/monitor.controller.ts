import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { WorkflowInstances } from '../executions/workflow-instances';
import { AdminGuard } from './admin.guard';
import { UserActivityService } from './user-activity.service';
import { MonitorUsersDto } from './dto/monitor-users.dto';

const iso = (ms: number) => new Date(ms).toISOString();

/** `GET /monitor/users`, registered when `general.enable_per_user_monitoring: true`; admins only. */
@ApiTags('Monitoring')
@Controller('monitor/users')
export class MonitorController {
  constructor(
    private readonly activity: UserActivityService,
    private readonly instances: WorkflowInstances,
  ) {}

  @Get()
  @UseGuards(AdminGuard)
  @ApiOperation({ summary: 'Per-user usage: sessions, requests and per-user workflow instances' })
  @ApiQuery({ name: 'user_id', required: false, description: 'Only this user (the uuid user id)' })
  @ApiOkResponse({ type: MonitorUsersDto })
  @ApiUnauthorizedResponse({ description: 'The caller is anonymous' })
  @ApiForbiddenResponse({
    description: 'The caller is not named in general.auth.admin, or no administrator is configured',
  })
  users(@Query('user_id') userId?: string): MonitorUsersDto {
    const users = this.activity.list(userId || undefined).map((u) => ({
      user_id: u.userId,
      session: {
        created_at: iso(u.createdAt),
        last_activity: iso(u.lastActivity),
        ref_count: u.activeRequests,
        is_active: u.activeRequests > 0,
      },
      requests: {
        total_requests: u.totalRequests,
        active_requests: u.activeRequests,
        avg_latency_ms:
          u.totalRequests - u.activeRequests > 0
            ? Math.round((u.totalLatencyMs / (u.totalRequests - u.activeRequests)) * 10) / 10
            : 0,
        error_count: u.errorCount,
      },
      memory: {
        per_user_functions_count: this.instances.functionsOf(u.userId),
        per_user_function_groups_count: 0,
        exit_stack_size: 0,
      },
    }));
    return { timestamp: new Date().toISOString(), total_active_users: users.length, users };
  }
}
