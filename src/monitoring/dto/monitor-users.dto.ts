import { ApiProperty } from '@nestjs/swagger';

export class MonitorSessionDto {
  @ApiProperty() created_at!: string;
  @ApiProperty() last_activity!: string;
  @ApiProperty({ description: 'Requests in flight' }) ref_count!: number;
  @ApiProperty() is_active!: boolean;
}

export class MonitorRequestsDto {
  @ApiProperty() total_requests!: number;
  @ApiProperty() active_requests!: number;
  @ApiProperty() avg_latency_ms!: number;
  @ApiProperty() error_count!: number;
}

export class MonitorMemoryDto {
  @ApiProperty() per_user_functions_count!: number;
  @ApiProperty() per_user_function_groups_count!: number;
  @ApiProperty() exit_stack_size!: number;
}

export class MonitorExecutionsDto {
  @ApiProperty({
    description: 'Executions of the user waiting for a person, on every replica (from the shared store)',
  })
  waiting!: number;
}

export class MonitorUserDto {
  @ApiProperty() user_id!: string;
  @ApiProperty({ type: MonitorSessionDto }) session!: MonitorSessionDto;
  @ApiProperty({ type: MonitorRequestsDto }) requests!: MonitorRequestsDto;
  @ApiProperty({ type: MonitorMemoryDto }) memory!: MonitorMemoryDto;
  @ApiProperty({ type: MonitorExecutionsDto }) executions!: MonitorExecutionsDto;
}

export class MonitorUsersDto {
  @ApiProperty() timestamp!: string;
  @ApiProperty({ description: 'Users with activity on any replica (each replica shares its own)' })
  total_active_users!: number;
  @ApiProperty({ type: [MonitorUserDto] }) users!: MonitorUserDto[];
}
