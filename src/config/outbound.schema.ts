import { IsArray, IsInt, IsNumber, IsString, Min } from 'class-validator';
import { DEFAULT_OUTBOUND, type OutboundSettings } from '../core/outbound/outbound-policy';
import { IfPresent } from '../core/validation/if-present.decorator';

/**
 * `general.outbound`: requests made by tools (`http_request`), scripted `fetch` steps and the feedback
 * webhook. Private, loopback and link-local addresses are refused unless listed. LLM endpoints and
 * OAuth providers are the operator's own and are not subject to it.
 */
export class OutboundConfig implements OutboundSettings {
  /** Host names (`*.corp.example` for subdomains), IP addresses or CIDRs (`10.0.0.0/8`) allowed anyway. */
  @IfPresent() @IsArray() @IsString({ each: true }) allow_hosts: string[] = [...DEFAULT_OUTBOUND.allow_hosts];
  /** A response is read up to this many bytes (http_request cuts it there, a scripted fetch fails). */
  @IfPresent() @Min(1) @IsInt() max_response_bytes = DEFAULT_OUTBOUND.max_response_bytes;
  @IfPresent() @Min(0.001) @IsNumber() timeout_seconds = DEFAULT_OUTBOUND.timeout_seconds;
}
