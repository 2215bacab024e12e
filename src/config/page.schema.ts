import { ArrayMaxSize, IsArray, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { IfPresent } from '../core/validation/if-present.decorator';

/** `general.front_end.ui`: what the built-in page shows over an empty conversation. */
export class PageConfig {
  /** The heading; the workflow's type when unset. */
  @IfPresent() @IsString() @MaxLength(120) title?: string;
  /** A line or two under it; the workflow's `description` when unset. */
  @IfPresent() @IsString() @MaxLength(2000) description?: string;
  /** Questions a person can start with in one click; none when unset. */
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(12)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  example_prompts: string[] = [];
  /**
   * The most MiB of conversations the server keeps for everyone together: past it the least recently
   * updated (anyone's) are dropped. Bounds what callers inventing identities (session cookies under
   * asserted identity) can make the server hold.
   */
  @IfPresent() @IsInt() @Min(1) @Max(1_048_576) conversations_max_mib = 64;
}
