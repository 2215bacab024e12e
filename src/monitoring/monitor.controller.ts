import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from './admin.guard';
import { MonitorUsersService } from './monitor-users.service';
import { MonitorUsersDto } from './dto/monitor-users.dto';
import { ApiErrorResponses } from '../http-responders/dto/error-responses.decorator';

/** `GET /monitor/users`, registered when `general.enable_per_user_monitoring: true`; admins only. */
@ApiTags('Monitoring')
@Controller('monitor/users')
export class MonitorController {
  constructor(private readonly monitor: MonitorUsersService) {}

  @Get()
  @UseGuards(AdminGuard)
  @ApiOperation({ summary: 'Per-user usage: sessions, requests and per-user workflow instances' })
  @ApiQuery({ name: 'user_id', required: false, description: 'Only this user (the uuid user id)' })
  @ApiOkResponse({ type: MonitorUsersDto })
  @ApiErrorResponses({
    401: 'The caller is anonymous, or the credential it sent was refused',
    403: 'The caller is not named in general.auth.admin, or no administrator is configured',
    503: 'A store this server depends on is unavailable; retry after Retry-After seconds',
  })
  users(@Query('user_id') userId?: string): Promise<MonitorUsersDto> {
    return this.monitor.users(userId || undefined);
  }
}
