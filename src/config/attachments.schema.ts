import { ArrayMaxSize, IsArray, IsIn, IsInt, Matches, Max, Min, NotContains } from 'class-validator';
import { IfPresent } from '../core/validation/if-present.decorator';
import { IMAGE_TYPES, type ImageLimits } from '../runtime/attachments';
import { FILE_TYPES, type FileLimits } from '../runtime/files';

/**
 * `general.front_end.attachments`: the images and files a chat may carry, when the workflow reads them
 * (an LLM agent that passes the user's message to the model as it is). They travel inline (data: URLs);
 * the body and message limits of each face apply too.
 */
export class AttachmentsConfig {
  /** Accepted image types; an empty list accepts none. */
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(IMAGE_TYPES.length)
  @IsIn(IMAGE_TYPES as unknown as string[], { each: true })
  image_types: string[] = [...IMAGE_TYPES];
  /**
   * Accepted file types (documents handed to the model as OpenAI `file` parts, their bytes never read
   * here); an empty list accepts none. Media types without parameters; images go in `image_types`.
   */
  @IfPresent()
  @IsArray()
  @ArrayMaxSize(50)
  @Matches(/^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,62}$/, {
    each: true,
    message: 'each entry of file_types must be a lower-case media type without parameters (application/pdf)',
  })
  @NotContains('image/', { each: true, message: 'file_types takes no image types: list them in image_types' })
  file_types: string[] = [...FILE_TYPES];
  /** The most bytes of one image or file (decoded). */
  @IfPresent() @IsInt() @Min(1) @Max(64 * 1024 * 1024) max_bytes = 5 * 1024 * 1024;

  /** What a function that reads images accepts; undefined when no image type is. */
  imageLimits(): ImageLimits | undefined {
    return this.image_types.length > 0 ? { types: this.image_types, maxBytes: this.max_bytes } : undefined;
  }

  /** What a function that reads files accepts; undefined when no file type is. */
  fileLimits(): FileLimits | undefined {
    return this.file_types.length > 0 ? { types: this.file_types, maxBytes: this.max_bytes } : undefined;
  }
}
