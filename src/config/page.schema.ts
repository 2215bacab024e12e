import { ArrayMaxSize, IsArray, IsString, MaxLength } from 'class-validator';
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
}
