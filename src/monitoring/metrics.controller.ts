import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { MetricsService } from './metrics.service';
import { ApiCommonErrors } from '../http-responders/dto/error-responses.decorator';

@ApiTags('Monitoring')
@ApiCommonErrors()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Prometheus metrics (text exposition format)' })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Metrics, names prefixed interlude_',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  async scrape(@Res() res: Response): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    res.status(200).type(contentType).send(body);
  }
}
